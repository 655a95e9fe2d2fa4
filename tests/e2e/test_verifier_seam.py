"""The `Verifier` seam through the Python API: a user's own verifier object, passed to `run_task`,
decides which parts of an answer are proven, within what Cairn checks exactly."""

from __future__ import annotations

from pathlib import Path

from cairn.core import RunConfig
from cairn.flows.prefect.flow import run_task
from cairn.tasks.verifier import PartVerdict, VerifyRequest
from tests.unit.tasks.team_docs import FILES

GOAL = "Which team owns the billing service, and what is the billing service's p95 latency budget?"


class ProvesNothing:
    def verify(self, request: VerifyRequest) -> list[PartVerdict]:
        return [PartVerdict(status="unverified", why="this verifier proves nothing") for _ in request.parts]


class ProvesWhatIsOnALine:
    """Proven wherever Cairn found the answer's value on a line the task read."""

    def __init__(self) -> None:
        self.requests: list[VerifyRequest] = []

    def verify(self, request: VerifyRequest) -> list[PartVerdict]:
        self.requests.append(request)
        return [
            PartVerdict(status="proven" if p.quotes else "unverified", score=1.0 if p.quotes else 0.0)
            for p in request.parts
        ]


def _docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_a_users_verifier_decides_what_is_proven(prefect_server: str, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    config = RunConfig(workspace=str(tmp_path / "ws"), max_iterations=4)

    nothing = run_task(GOAL, config=config, task_id="nothing", sources=[str(docs)], verifier=ProvesNothing())
    assert nothing.status == "incomplete"
    assert nothing.verdict is not None
    assert {p.judge for p in nothing.verdict.parts} == {"ProvesNothing"}
    assert not any(p.answered for p in nothing.verdict.parts)

    on_a_line = ProvesWhatIsOnALine()
    proven = run_task(GOAL, config=config, task_id="on-a-line", sources=[str(docs)], verifier=on_a_line)
    assert proven.status == "complete", proven.unmet
    assert proven.verdict is not None
    assert [(p.value, p.judge) for p in proven.verdict.parts] == [
        ("Team Falcon", "ProvesWhatIsOnALine"),
        ("180 ms", "ProvesWhatIsOnALine"),
    ]
    asked = on_a_line.requests[-1]
    assert [{q.source for q in p.quotes} for p in asked.parts] == [
        {"source:docs/teams.md"},
        {"source:docs/slos.md"},
    ]
    answers = [r.answer for r in on_a_line.requests]
    assert len(answers) == len(set(answers))  # asked once per answer: the draft and the delivered one are one
