"""A coverage goal with a served model: the model reads each item's lines and names its values;
Cairn takes a value only where a line of the item holds it, and the verifier judges it (as it
judges the offline reader's rows, when the task was given one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cairn.core import LedgerRow, RunConfig
from cairn.flows.loop.cycle import TaskResult
from cairn.flows.steps.executor import InProcessExecutor
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.prompts import parse_request
from cairn.tasks.messages.schemas import LedgerInput, LedgerOutput
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.verifier import PartVerdict, Verifier, VerifyRequest
from tests.model_server import ModelServer
from tests.unit.scripted import run_whole_task

GOAL = "For every service, list the team that owns it and its p95 latency budget."
OTHERS = {
    "alpha": "Team Coot",
    "beta": "Team Rook",
    "gamma": "Team Teal",
    "delta": "Team Smew",
    "kappa": "Team Ruff",
}
OTHERS |= {"sigma": "Team Tern"}
REGISTER = "| service | owner | p95 latency budget (ms) |\n|---|---|---|\n| billing | Team Wren | 180 |\n"
REGISTER += "| search | Team Kite | 240 |\n" + "".join(f"| {s} | {t} | 300 |\n" for s, t in OTHERS.items())
MEMO = "# Memo, 2026-03-02\n\nThe billing service moves to Team Lark.\n"
# A note whose heading alone names its item, in words the fitted reader does not read, and a
# glossary whose heading names no item.
BELZU = "# Belzu\n\n95 of every 100 requests must finish within 970 ms. On call for it: Team Chiffchaff.\n"
GLOSSARY = (
    "# Glossary\n\n- **Maintainer**: the team paged first when something breaks.\n"
    "- **95th-percentile response time**: the time within which 95 of every 100 requests finish.\n"
)
ROTA = "# Support rota\n\n| week | first line |\n|---|---|\n| 10 | Team Wryneck |\n| 11 | Team Dunnock |\n"
Reader = Callable[[LedgerInput], list[str]]


class ProvesWhatIsOnALine:
    def verify(self, request: VerifyRequest) -> list[PartVerdict]:
        return [PartVerdict(status="proven" if p.quotes else "unverified") for p in request.parts]


def _current(asked: LedgerInput) -> list[str]:
    """A model that reads the lines as a person does: the memo's later owner, the register's figure."""
    return {
        "billing": ["Team Lark", "180 ms"],
        "search": ["Team Kite", "240 ms"],
        **{name: [team, "300 ms"] for name, team in OTHERS.items()},
        "Belzu": ["Team Chiffchaff", "970 ms"],
        "Support rota": ["Team Wryneck", "10"],  # as the 1.5B read a rota's title
    }.get(  # as the 1.5B read a glossary: its definitions, on its lines
        asked.item,
        [
            "The team paged first when something breaks",
            "the time within which 95 of every 100 requests finish",
        ],
    )


def _run(tmp_path: Path, read: Reader, verifier: Verifier | None = None) -> tuple[TaskResult, list[Any]]:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    (folder / "register.md").write_text(REGISTER, encoding="utf-8")
    (folder / "memo.md").write_text(MEMO, encoding="utf-8")
    (folder / "belzu.md").write_text(BELZU, encoding="utf-8")
    (folder / "terms.md").write_text(GLOSSARY, encoding="utf-8")  # read once the columns are typed
    (folder / "rota.md").write_text(ROTA, encoding="utf-8")
    asked: list[LedgerInput] = []

    def respond(messages: list[dict[str, Any]]) -> str | None:
        _, payload = parse_request(messages)
        if not isinstance(payload, LedgerInput):
            return None
        asked.append(payload)
        return LedgerOutput(answers=read(payload)).model_dump_json()

    config = RunConfig(workspace=str(tmp_path / "ws"), model="openai/m", max_iterations=4)
    with ModelServer() as server:
        server.respond = respond
        kwargs = {"api_base": server.url, "api_key": "x"}
        executor = InProcessExecutor(ModelClient("openai/m", litellm_kwargs=kwargs, retry_wait=0))
        result = run_whole_task(config, "t", GOAL, [folder], executor=executor, verifier=verifier)
    return result, asked


def _rows(tmp_path: Path) -> dict[str, LedgerRow]:
    return Workspace(tmp_path / "ws").task("t").state().ledger


def test_the_model_reads_each_items_dated_lines_and_judges_which_value_is_current(tmp_path: Path) -> None:
    result, asked = _run(tmp_path, _current)
    billing = next(a for a in asked if a.item == "billing")
    assert billing.questions == ["Which team owns billing?", "What is the p95 latency budget of billing?"]
    assert any("(2026-03-02)" in line and "Team Lark" in line for line in billing.lines)
    owner = _rows(tmp_path)["billing"].cells[0]
    assert (owner.value, owner.status) == ("Team Lark", "unverified")  # Cairn's own judge proves no memo
    assert "Cairn's reader gives Team Wren" in owner.note  # the register's, which the memo changed
    assert [q.source for q in owner.quotes] == ["source:docs/memo.md"]
    calls = Workspace(tmp_path / "ws").task("t").state().model_calls
    assert sorted(c.kind for c in calls if c.kind == "ledger") == ["ledger"] * len(asked)
    assert not result.complete  # nothing proven


def test_a_value_no_line_of_the_item_holds_leaves_the_offline_cell(tmp_path: Path) -> None:
    _run(tmp_path, lambda asked: ["Team Nobody", "not given"])
    owner, budget = _rows(tmp_path)["search"].cells
    assert "Nobody" not in owner.value and owner.value.endswith("Team Kite")
    assert "240" in budget.value and budget.status != "not_given"


def test_a_verifier_that_proves_what_is_on_a_line_completes_the_ledger_from_the_models_reading(
    tmp_path: Path,
) -> None:
    result, _ = _run(tmp_path, _current, verifier=ProvesWhatIsOnALine())
    rows = _rows(tmp_path)
    assert [(c.value, c.status) for c in rows["billing"].cells] == [
        ("Team Lark", "quoted"),
        ("180 ms", "quoted"),
    ]
    assert rows["search"].done
    assert result.complete, result.stop_reason


def test_a_section_whose_heading_names_an_item_is_a_row_where_the_model_reads_every_field_on_its_lines(
    tmp_path: Path,
) -> None:
    _, asked = _run(tmp_path, _current)
    rows = _rows(tmp_path)
    assert [(c.value, c.status) for c in rows["Belzu"].cells] == [
        ("Team Chiffchaff", "unverified"),
        ("970 ms", "unverified"),
    ]
    assert "Glossary" not in rows and "Support rota" not in rows  # a handbook, a register's title
    assert sorted(a.item for a in asked) == sorted(
        ["Belzu", "Glossary", "Support rota", "billing", "search", *OTHERS]
    )


class ProvesNothing:
    def verify(self, request: VerifyRequest) -> list[PartVerdict]:
        return [PartVerdict(status="unverified", why="this verifier proves nothing") for _ in request.parts]


def test_offline_a_users_verifier_decides_the_ledger_too(tmp_path: Path) -> None:
    """Cairn's reader fills the rows; the verifier the task was given judges them, as it judges a
    served model's (the register's `180 ms` is Cairn's own proof, which a verifier may refuse)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "register.md").write_text(REGISTER, encoding="utf-8")
    states = []
    for n, verifier in enumerate([ProvesNothing(), ProvesWhatIsOnALine()]):
        config = RunConfig(workspace=str(tmp_path / f"ws{n}"), model="cairn/offline", max_iterations=3)
        run_whole_task(config, "t", GOAL, [folder], verifier=verifier)
        states.append(Workspace(tmp_path / f"ws{n}").task("t").state().ledger)
    refused, trusted = states
    assert not any(c.status == "quoted" for row in refused.values() for c in row.cells)
    assert "this verifier proves nothing" in refused["billing"].cells[1].note
    assert [(c.value, c.status) for c in trusted["billing"].cells] == [
        ("Team Wren", "quoted"),
        ("180 ms", "quoted"),
    ]
