"""The import names of earlier releases, kept so that what they wrote still loads.

- Cairn 0.1 installed three top-level packages, `flows`, `tasks`, `memory`. Prefect pickled task
  results with those names (`tasks.tools.base.ToolOutput`), so `tasks.tools.base` must still
  resolve: each is an alias of `cairn.*`, found only as a last resort (a user's own `tasks.py`,
  `memory.py` or `flows/` is always found first). To be removed in 0.4.
- Cairn 0.2 kept 120 modules in three flat folders; 0.3 gives each room a sub-package
  (`cairn.flows.agent` is now `cairn.flows.prefect.flow`). Results pickled by 0.2 name the old
  modules, and deployments made by 0.2 name their entrypoints (`cairn.flows.serve:scheduled_task`),
  so every moved module keeps its 0.2 name as an alias (`MOVED_IN_0_3`). The five modules that
  became packages of the same name (`cairn.flows.cli`, `cairn.flows.loop`, `cairn.flows.server`,
  `cairn.memory.store`, `cairn.memory.context`) export their 0.2 names from the package itself.

An alias is the same module object, so nothing runs twice and classes compare equal:

>>> install_legacy_aliases()
>>> import importlib
>>> old, new = importlib.import_module("memory.models"), importlib.import_module("cairn.memory.models")
>>> old.Evidence is new.Evidence
True
>>> importlib.import_module("cairn.tasks.schemas") is importlib.import_module("cairn.tasks.messages.schemas")
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

LEGACY = ("flows", "tasks", "memory")

MOVED_IN_0_3 = {
    "cairn.flows.agent": "cairn.flows.prefect.flow",
    "cairn.flows.arguments": "cairn.flows.cli.arguments",
    "cairn.flows.artifacts": "cairn.flows.prefect.ui",
    "cairn.flows.commands": "cairn.flows.cli.commands",
    "cairn.flows.delivery": "cairn.flows.steps.deliver",
    "cairn.flows.deployment": "cairn.flows.prefect.deployment",
    "cairn.flows.durable": "cairn.flows.prefect.durable",
    "cairn.flows.ephemeral": "cairn.flows.server.ephemeral",
    "cairn.flows.executor": "cairn.flows.steps.executor",
    "cairn.flows.files": "cairn.flows.cli.files",
    "cairn.flows.iteration": "cairn.flows.loop.iteration",
    "cairn.flows.launch": "cairn.flows.prefect.launch",
    "cairn.flows.liveness": "cairn.flows.prefect.liveness",
    "cairn.flows.model_calls": "cairn.flows.steps.model_calls",
    "cairn.flows.model_usage": "cairn.flows.cli.model_usage",
    "cairn.flows.outcome": "cairn.flows.loop.outcome",
    "cairn.flows.planning": "cairn.flows.steps.plan",
    "cairn.flows.policy": "cairn.flows.loop.policy",
    "cairn.flows.postgres": "cairn.flows.server.postgres",
    "cairn.flows.preflight": "cairn.flows.loop.preflight",
    "cairn.flows.reopen": "cairn.flows.loop.reopen",
    "cairn.flows.report": "cairn.flows.cli.result_view",
    "cairn.flows.results": "cairn.flows.loop.results",
    "cairn.flows.review": "cairn.flows.prefect.review",
    "cairn.flows.rules": "cairn.flows.loop.standing_rules",
    "cairn.flows.serve": "cairn.flows.prefect.serve",
    "cairn.flows.server_commands": "cairn.flows.cli.server_commands",
    "cairn.flows.session": "cairn.flows.steps.session",
    "cairn.flows.start": "cairn.flows.loop.start",
    "cairn.flows.story": "cairn.flows.prefect.story",
    "cairn.flows.task_tools": "cairn.flows.loop.task_tools",
    "cairn.flows.tools_commands": "cairn.flows.cli.tools_commands",
    "cairn.flows.uncertain": "cairn.flows.loop.uncertain",
    "cairn.flows.unverified": "cairn.flows.loop.unverified",
    "cairn.flows.worker": "cairn.flows.prefect.worker",
    "cairn.flows.writing": "cairn.flows.steps.write",
    "cairn.memory.backends": "cairn.memory.store.backends",
    "cairn.memory.chunking": "cairn.memory.index.chunking",
    "cairn.memory.code_docs": "cairn.memory.index.code_docs",
    "cairn.memory.directory": "cairn.memory.index.directory_summary",
    "cairn.memory.embeddings": "cairn.memory.embed.embeddings",
    "cairn.memory.errors": "cairn.errors",
    "cairn.memory.events": "cairn.memory.log.events",
    "cairn.memory.extract": "cairn.memory.context.extract",
    "cairn.memory.file_index": "cairn.memory.index.file_index",
    "cairn.memory.fusion": "cairn.memory.store.fusion",
    "cairn.memory.history": "cairn.memory.log.history",
    "cairn.memory.indexer": "cairn.memory.index.indexer",
    "cairn.memory.levels": "cairn.memory.context.levels",
    "cairn.memory.potion_embedding": "cairn.memory.embed.potion_embedding",
    "cairn.memory.query": "cairn.memory.context.query",
    "cairn.memory.reasoning": "cairn.memory.context.reasoning",
    "cairn.memory.recorder": "cairn.memory.index.recorder",
    "cairn.memory.redact": "cairn.redact",
    "cairn.memory.relevant": "cairn.memory.context.relevant",
    "cairn.memory.rerank": "cairn.memory.store.rerank",
    "cairn.memory.sources": "cairn.memory.index.sources",
    "cairn.memory.sqlite_rows": "cairn.memory.store.sqlite_rows",
    "cairn.memory.sqlite_schema": "cairn.memory.store.sqlite_schema",
    "cairn.memory.sqlite_search": "cairn.memory.store.sqlite_search",
    "cairn.memory.sqlite_store": "cairn.memory.store.sqlite_store",
    "cairn.memory.state": "cairn.memory.log.state",
    "cairn.memory.static_embedding": "cairn.memory.embed.static_embedding",
    "cairn.memory.store_checks": "cairn.memory.store.checks",
    "cairn.memory.transcript": "cairn.memory.index.transcript",
    "cairn.memory.values": "cairn.memory.context.values",
    "cairn.memory.weaviate_schema": "cairn.memory.store.weaviate_schema",
    "cairn.memory.weaviate_search": "cairn.memory.store.weaviate_search",
    "cairn.memory.weaviate_store": "cairn.memory.store.weaviate_store",
    "cairn.memory.words": "cairn.memory.embed.words",
    "cairn.memory.workspace": "cairn.memory.log.workspace",
    "cairn.tasks._prefect": "cairn.flows.prefect.task_defaults",
    "cairn.tasks.arithmetic": "cairn.tasks.grounding.arithmetic",
    "cairn.tasks.cassette": "cairn.tasks.model.cassette",
    "cairn.tasks.file_reply": "cairn.tasks.messages.file_reply",
    "cairn.tasks.grounding.task": "cairn.tasks.task_grounding",
    "cairn.tasks.grounding.text": "cairn.tasks.grounding.answer_text",
    "cairn.tasks.llm": "cairn.tasks.model.llm",
    "cairn.tasks.model_probe": "cairn.tasks.model.probe",
    "cairn.tasks.offline.coding": "cairn.tasks.offline.spec_code",
    "cairn.tasks.offline.rules": "cairn.tasks.offline.classifier",
    "cairn.tasks.plan": "cairn.flows.steps.frontier",
    "cairn.tasks.prompts": "cairn.tasks.messages.prompts",
    "cairn.tasks.rule_check": "cairn.tasks.rule_stated",
    "cairn.tasks.schemas": "cairn.tasks.messages.schemas",
    "cairn.tasks.steps": "cairn.flows.prefect.tasks",
    "cairn.tasks.tools.files": "cairn.tasks.tools.file_tools",
    "cairn.tasks.tools.mcp_client": "cairn.tasks.tools.mcp.client",
    "cairn.tasks.tools.mcp_tools": "cairn.tasks.tools.mcp.tools",
    "cairn.tasks.tools.toolset": "cairn.tasks.toolset",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """The module already ran under its current name; nothing runs twice."""


class _LegacyFinder(importlib.abc.MetaPathFinder):
    """Resolves `memory.models` to `cairn.memory.models`, and `cairn.flows.agent` to
    `cairn.flows.prefect.flow` (the same module object)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in MOVED_IN_0_3:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(MOVED_IN_0_3[fullname]))
        top = fullname.partition(".")[0]
        if top not in LEGACY:
            return None
        if fullname == top:
            if importlib.machinery.PathFinder.find_spec(top) is not None:
                return None  # someone else's `tasks`: theirs wins
        elif getattr(sys.modules.get(top), "__name__", None) != f"cairn.{top}":
            return None  # a submodule of someone else's package
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(f"cairn.{fullname}"))


def install_legacy_aliases() -> None:
    """Add the finder once. It goes first so that a legacy submodule never loads a second copy of
    a `cairn` module from the folder on disk; it declines every name that is not an alias."""
    if not any(isinstance(finder, _LegacyFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _LegacyFinder())
