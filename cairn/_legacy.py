"""The module names of earlier releases, read only inside the results Cairn persisted then.

Through 0.3 Prefect pickled each call's result, and a pickle names the class by its module path:
Cairn 0.1's top-level `tasks.tools.base.ToolOutput`, 0.2's `cairn.tasks.schemas.Plan` (now
`cairn.tasks.messages.schemas.Plan`), 0.3's `cairn.memory.models.CallCost` (now in `cairn.core`).
Since 0.4 results are data (`cairn.flows.prefect.result_data`), and an older record is read once
through `load_old_pickle`, whose unpickler maps the old names to today's modules. Nothing is
installed in the process: `import tasks`, `import cairn.flows.agent` or (since 0.5) `import
cairn.memory.models` fails, as it should, for the user's code and Cairn's alike.

>>> current_module("tasks.schemas"), current_module("cairn.flows.agent"), current_module("json")
('cairn.tasks.messages.schemas', 'cairn.flows.prefect.flow', 'json')
>>> current_module("memory.models"), current_module("cairn.memory.events")
('cairn.core', 'cairn.core.events')
>>> current_entrypoint("cairn.flows.serve:scheduled_task")
'cairn.flows.prefect.serve:scheduled_task'
>>> current_entrypoint("flows/agent.py:run_task")  # 0.1 named a file of its checkout
'cairn.flows.prefect.flow:run_task'
"""

from __future__ import annotations

import importlib
import io
import pickle
import re
from typing import Any

from pydantic import BaseModel

# Cairn 0.1's three top-level packages, `cairn.*` since 0.2.
TOP_LEVEL_0_1 = ("flows", "tasks", "memory")

# Each module that moved in 0.3 (into a room's sub-package), by its 0.2 name.
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


# The vocabulary's modules that moved to the floor in 0.4; 0.5 removed their old paths. The old
# `models` module held classes now split by concept (`cairn.core.usage.CallCost`,
# `cairn.core.verdict.Verdict`, ...): `cairn.core` names each of them.
MOVED_TO_CORE = {
    "cairn.memory.models": "cairn.core",
    "cairn.memory.log.events": "cairn.core.events",
    "cairn.memory.tool_config": "cairn.core.tool_config",
    "cairn.memory.fsnames": "cairn.core.fsnames",
    "cairn.tasks.call_key": "cairn.core.call_key",
    "cairn.errors": "cairn.core.errors",
}


def current_module(name: str) -> str:
    """Today's path of a module an older Cairn named (0.1's top-level names, 0.2's flat ones)."""
    if name.partition(".")[0] in TOP_LEVEL_0_1:
        name = f"cairn.{name}"
    name = MOVED_IN_0_3.get(name, name)
    return MOVED_TO_CORE.get(name, name)


def current_entrypoint(entrypoint: str) -> str:
    """A deployment's entrypoint as today's module: 0.1 named a file of its checkout
    (`flows/serve.py:scheduled_task`), 0.2 a module that moved (`cairn.flows.serve:...`)."""
    where, _, function = entrypoint.rpartition(":")
    if where.endswith(".py"):
        where = where.removesuffix(".py").replace("/", ".").removeprefix("cairn.")
    return f"{current_module(where)}:{function}"


_GENERIC = re.compile(r"^(\w+)\[Any\]$")  # pydantic's name of a parametrised model: `LLMResult[Any]`


class _OldNamesUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        found = importlib.import_module(current_module(module))
        generic = _GENERIC.match(name)
        if generic is None or hasattr(found, name):
            return getattr(found, name)
        # pydantic kept `LLMResult[Any]` as an attribute of the module that first parametrised it
        # (0.2, 0.3: `cairn.tasks.compress`); the same parametrisation of its origin is that class.
        return getattr(found, generic.group(1))[Any]


def _with_new_fields(loaded: Any) -> Any:
    """Fields added since a record was pickled take their defaults, in every model it holds:
    pickle restores a model's `__dict__` as it was written, so a newer field would be missing."""
    seen: set[int] = set()
    pending = [loaded]
    while pending:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, BaseModel):
            for name, field in type(value).model_fields.items():
                if name not in value.__dict__ and not field.is_required():
                    value.__dict__[name] = field.get_default(call_default_factory=True)
            pending.extend(value.__dict__.values())
        elif isinstance(value, list | tuple | set | frozenset):
            pending.extend(value)
        elif isinstance(value, dict):
            pending.extend(value.values())
    return loaded


def load_old_pickle(blob: bytes) -> Any:
    """A result an older Cairn pickled, its classes found under today's module names and its
    models given the fields added since.

    >>> import pickle, types
    >>> load_old_pickle(pickle.dumps(types.SimpleNamespace(a=1)))
    namespace(a=1)
    >>> load_old_pickle(b"cmemory.models\\nCallCost\\n.")  # 0.1's name of a class, in a pickle
    <class 'cairn.core.usage.CallCost'>
    """
    return _with_new_fields(_OldNamesUnpickler(io.BytesIO(blob)).load())
