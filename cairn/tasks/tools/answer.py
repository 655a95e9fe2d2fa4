"""`answer`: deliver the task's result as one explicit step.

A small model can hold every fact it needs in its notes and still never write the deliverable:
writing Markdown with citation marks into a file it must name is three decisions at once. This
tool is one: the answer text and the files it relies on. It writes the deliverable (`answer.md`
for a simple question, else `report.md`) with a `## Sources` list of the cited files that exist,
so the evidence that the answer was synthesized from sources follows from the file itself.

>>> ctx = ToolContext(task_id="t", artifacts=Path("/tmp/a"))  # doctest: +SKIP
>>> out = answer(ctx, "It lasts 150 days.", ["source:corpus/reservoir.md"])  # doctest: +SKIP
>>> out.written.path  # doctest: +SKIP
'answer.md'
"""

from __future__ import annotations

from cairn.core import JsonValue
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure
from cairn.tasks.tools.file_tools import found_write, write_file
from cairn.tasks.tools.paths import PathError, resolve_path


def answer(ctx: ToolContext, answer: str, sources: list[JsonValue] | str | None = None) -> ToolOutput:
    """Write the deliverable: the answer (Markdown) and the sources it cites."""
    if not answer.strip():
        return failure("the answer is empty: give the answer text, with the facts and their sources")
    body, unknown = _deliverable(ctx, answer, sources)
    return _citing(write_file(ctx, ctx.deliverable, body), unknown)


def found_answer(ctx: ToolContext, params: dict[str, JsonValue]) -> ToolOutput | None:
    """An interrupted `answer`'s effect, when it is there: the deliverable holds what the call would
    write (`Tool.settle`, `cairn.flows.loop.uncertain`); its output, as the call would have returned it."""
    text, sources = params.get("answer"), params.get("sources")
    if not isinstance(text, str) or not text.strip() or not isinstance(sources, list | str | None):
        return None
    body, unknown = _deliverable(ctx, text, sources)
    found = found_write(ctx, {"path": ctx.deliverable, "content": body})
    return _citing(found, unknown) if found is not None else None


def _deliverable(
    ctx: ToolContext, answer: str, sources: list[JsonValue] | str | None
) -> tuple[str, list[str]]:
    """The deliverable's text, and the cited paths that name no file."""
    cited, unknown = _existing(ctx, _paths(sources))
    body = answer.strip()
    if cited:
        body += "\n\n## Sources\n" + "".join(f"- {path}\n" for path in cited)
    return body.rstrip("\n") + "\n", unknown


def _citing(written: ToolOutput, unknown: list[str]) -> ToolOutput:
    if written.outcome != "success" or not unknown:
        return written
    dropped = ", ".join(unknown)
    return written.model_copy(update={"text": f"{written.text}; not cited (no such file): {dropped}"})


def _paths(sources: list[JsonValue] | str | None) -> list[str]:
    if sources is None:
        return []
    items = sources.replace(";", ",").split(",") if isinstance(sources, str) else sources
    return list(dict.fromkeys(str(item).strip() for item in items if str(item).strip()))


def _existing(ctx: ToolContext, paths: list[str]) -> tuple[list[str], list[str]]:
    """The cited paths that name a readable file, and those that do not."""
    found: list[str] = []
    unknown: list[str] = []
    for path in paths:
        try:
            target = resolve_path(ctx.artifacts, path, readonly_roots=ctx.sources, for_write=False)
        except PathError:
            unknown.append(path)
            continue
        (found if target.is_file() else unknown).append(path)
    return found, unknown
