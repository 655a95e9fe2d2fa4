"""Cairn: durable long-horizon agent tasks on Prefect, with evidence-based memory.

The distribution is `cairn-agents`; the import namespace is `cairn`, and every module lives at the
path it is imported by (docs/design.md opens with the map):

- `cairn.flows`  — the command line, the task loop and its steps, Prefect's room, the server;
- `cairn.tasks`  — model client and messages, tools, grounding, validation;
- `cairn.memory` — the workspace and event log, stores, embeddings, indexing, context;
- `cairn.core`   — the vocabulary all three speak: models, events, `RunConfig`, errors.

>>> from cairn.flows import run_task  # doctest: +SKIP
>>> from cairn.memory import open_store, Workspace  # doctest: +SKIP
"""

__version__ = "0.5.0"
