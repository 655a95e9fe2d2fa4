"""Agent tools: plain functions over a workspace."""
