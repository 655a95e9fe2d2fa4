"""Cairn memory: models, workspace and event log, stores, embeddings, context (no Prefect)."""
