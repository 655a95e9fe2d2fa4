"""Cairn: durable long-horizon agent tasks on Prefect, with evidence-based memory.

The distribution is `cairn-agents`; the import namespace is `cairn`. Its parts live in the
repository's top-level folders and are mapped into the namespace by the build:

- `cairn.flows`  (`flows/`)  — the task loop, one BFS iteration, the CLI;
- `cairn.tasks`  (`tasks/`)  — tools, model calls, validation;
- `cairn.memory` (`memory/`) — models, workspace and event log, stores, embeddings, context.

>>> from cairn.flows import run_task  # doctest: +SKIP
>>> from cairn.memory import open_store, Workspace  # doctest: +SKIP
"""

from cairn._legacy import install_legacy_aliases

__version__ = "0.2.0"

install_legacy_aliases()
