"""Cairn tasks: tools, model calls, validation; plain functions with thin Prefect wrappers."""
