"""A coding goal of several functions, written piece by piece (`cairn.tasks.pieces`).

Asked for a whole module of ten functions, the 1.5B dropped an import, a helper or a function that
passed in one reply of three, and each such reply cost an iteration (HumanEval 0-9 as one task: 5
of 10 functions right after 10 iterations, where asking it each function in turn gave 10 of 10).
Here each function the goal gives is asked for alone, in the plain form (its stub, the helpers it
names, what its last version got wrong), and spliced into the module; the task's test run (the
goal's examples) verifies each piece, and a verified piece is never asked for again. A resumed
iteration asks with the same keys and finds its finished asks in the cache.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Collection
from pathlib import Path, PurePosixPath

from cairn.core import CallKey, Disagreement, PieceChecked
from cairn.flows.steps.redraw import defined, stubs
from cairn.flows.steps.session import Session
from cairn.memory.log.state import TaskState
from cairn.tasks.grounding.functions import named_files
from cairn.tasks.messages.schemas import Candidate, Excerpt, WriteInput
from cairn.tasks.piece_tests import test_of, tests_in, tests_stub
from cairn.tasks.pieces import (
    DRAWS,
    Piece,
    ask_text,
    completed,
    failures_of,
    module_of,
    pieces_of,
    splice,
    verified,
)
from cairn.tasks.probes import consensus, disagreement, probe_calls
from cairn.tasks.task_grounding import FullOutput
from cairn.tasks.tools.code import run_python

KIND = "piece"  # the call key's kind: one ask per piece, its index the piece's place in the goal
TEST_KIND = "piece_test"  # the model's test of a piece without examples: one ask, ever
TESTS_WHY = "The model's own test of each function the goal gives no example of:"
PER_ITERATION = 12  # pieces asked for in one iteration (the rest wait for the next)
ATTEMPTS = 3  # asks of one piece in one iteration while a reply gives it no body or fails its examples
SECOND_OPINIONS = 2  # samples asked for to second a body that passed its examples
SPAN = 1000  # a re-ask's key index: the piece's own plus SPAN per attempt
PIECES_WHY = "Written piece by piece, each function asked for alone:"
Drafts = Callable[[CallKey, WriteInput, str], dict[str, str]]  # a `write` ask's files by path


def module_file(goal: str) -> str | None:
    """The one code file a piecewise goal writes (tests files aside), or None when the goal names
    several or none.

    >>> module_file("Write solution.py with pytest tests in test_solution.py"), module_file("a.py and b.py")
    ('solution.py', None)
    """
    named = [PurePosixPath(p) for p in named_files(goal) if p.endswith(".py")]
    code = [p.as_posix() for p in named if not p.name.startswith("test_")]
    return code[0] if len(code) == 1 else None


def asked_pieces(goal: str) -> list[Piece]:
    """The pieces a piecewise goal asks for (those the goal does not write itself); none when the
    goal is not piecewise: no one module to write them in, or no function in code to ask for."""
    asked = [p for p in pieces_of(goal) if not p.given]
    return asked if module_file(goal) else []


def step(session: Session, iteration: int, drafts: Drafts) -> list[Candidate] | None:
    """The module with the pieces that are not verified written anew (None: the goal is not
    piecewise; [] when no piece came back as code)."""
    state = session.state
    if not asked_pieces(state.goal):
        return None
    module = module_file(state.goal) or ""
    pieces = pieces_of(state.goal)
    path = session.artifacts / module
    code = module_of(state.goal, pieces, path.read_text(encoding="utf-8") if path.is_file() else "")
    runs = runs_of(state, session.reader)
    done = verified(pieces, runs)
    last = runs[-1][1] if runs else ""
    written: list[str] = []
    spent = {name for name, checked in state.pieces.items() if checked.draws >= DRAWS}
    for piece in to_ask(pieces, done, code, spent)[:PER_ITERATION]:
        new = _drawn(session, iteration, piece, code, failures_of(last, piece.name), drafts)
        if new is not None and new != code:
            code, written = new, [*written, piece.name]
    if not written:
        return []
    asked = [p.name for p in pieces if not p.given]
    return [
        *_code_write(module, code, written, done, asked),
        *_tests_write(session, iteration, code, drafts),
    ]


def _code_write(
    module: str, code: str, written: list[str], done: list[str], asked: list[str]
) -> list[Candidate]:
    return [
        Candidate(
            tool="write_file",
            params={"path": module, "content": code},
            rationale=f"{PIECES_WHY} {', '.join(written)}; verified so far {len(done)} of {len(asked)}"
            + (f" ({', '.join(done)})." if done else "."),
            expected_evidence=["file_creation", "code_implementation"],
        )
    ]


def _tests_write(session: Session, iteration: int, code: str, drafts: Drafts) -> list[Candidate]:
    """The model's own test of each function the goal gives no example of, once it is written
    (`cairn.tasks.piece_tests`): asked for once each, into the tests file the goal names."""
    state = session.state
    path, module = tests_file(state.goal), PurePosixPath(module_file(state.goal) or "").stem
    pieces = pieces_of(state.goal)
    bare = [p for p in pieces if not (p.given or p.examples or p.name in stub_names(code, pieces))]
    if not bare or path in state.files:
        return []
    tests: list[str] = []
    for piece in bare:
        ask = WriteInput(
            goal=state.goal,
            form="plain",
            current=[Excerpt(source=path, text=tests_stub(piece, module))],
            bodies=[f"{test_of(piece)} in {path}"],
        )
        key = CallKey(task_id=session.task_id, iteration=iteration, index=pieces.index(piece), kind=TEST_KIND)
        if found := tests_in(drafts(key, ask, f"test-{iteration}-{piece.name}").get(path, ""), piece, pieces):
            tests.append(found)
    if not tests:
        return []
    names = ", ".join(dict.fromkeys(n for p in bare for n in (p.name, *p.helpers)))
    content = f"from {module} import {names}\n\n\n" + "\n\n".join(tests)
    return [
        Candidate(
            tool="write_file",
            params={"path": path, "content": content},
            rationale=f"{TESTS_WHY} {', '.join(p.name for p in bare)}.",
            expected_evidence=["file_creation", "validation"],
        )
    ]


def tests_file(goal: str) -> str:
    """The tests file the goal names (`test_solution.py`), else one named after its module."""
    named = [p for p in named_files(goal) if PurePosixPath(p).name.startswith("test_") and p.endswith(".py")]
    return named[0] if named else f"test_{PurePosixPath(module_file(goal) or 'solution.py').name}"


def _drawn(
    session: Session, iteration: int, piece: Piece, code: str, failed: str, drafts: Drafts
) -> str | None:
    """The module with the piece as the model writes it: asked again at once, as a new sample shown
    what the last one got wrong, while a reply gives it no body or fails the piece's examples (run
    by Cairn on the spliced module), up to `ATTEMPTS` asks (`DRAWS` over the task); then a second
    opinion (`_seconded`) on a body that passed after the model's first answer did not: one chosen
    among samples for fitting the examples (HumanEval's `find_zero` drawn until it fit them, and
    wrong). The model's first answer passing the examples is not seconded: it was not chosen for
    fitting them, and a second sample of it was worse (design.md). The last body written when none
    passed; None when no reply gave one. What came of it is recorded (`PieceChecked`)."""
    samples = _Samples(session, iteration, piece, code, drafts)
    written: str | None = None
    passed = False
    for _ in range(min(ATTEMPTS, DRAWS - samples.first)):
        if (new := samples.next(tests=failed)) is None:
            continue
        written, failed = new, examples_fail(new, piece)
        if passed := not failed:
            break
    seconded, split = False, None
    if passed and written is not None and samples.drawn_after_a_failure:
        written, seconded, split = _seconded(written, piece, lambda between: samples.next(between=between))
    checked = PieceChecked(
        iteration=iteration,
        name=piece.name,
        draws=samples.first + samples.asked,
        passed=passed,
        seconded=seconded,
        disagreement=split,
    )
    session.recorder.record(checked)
    return written


class _Samples:
    """The model's samples of one piece in one iteration, in order: the nth is the piece's
    `first + n`th draw, asked with key index `piece + SPAN * n`, so a resumed iteration asks the
    same and finds its finished asks. The first draw is asked as a user asks the model without
    Cairn (the whole function); later ones for the lines after its docstring (shorter replies)."""

    def __init__(self, session: Session, iteration: int, piece: Piece, code: str, drafts: Drafts) -> None:
        self.session, self.iteration, self.piece, self.code, self.drafts = (
            session,
            iteration,
            piece,
            code,
            drafts,
        )
        self.index = pieces_of(session.state.goal).index(piece)
        self.first = draws(session.state, iteration, self.index)
        self.asked = 0

    @property
    def drawn_after_a_failure(self) -> bool:
        """Whether the last body came from a sample after the first draw (the model's likeliest reply)."""
        return self.first + self.asked > 1

    def next(self, tests: str = "", between: str = "") -> str | None:
        """The module with the next sample's body spliced in (None: the reply gave no body),
        shown what its last version failed (`tests`) or where two samples disagree (`between`)."""
        n, goal = self.asked, self.session.state.goal
        self.asked += 1
        module, pieces = module_file(goal) or "", pieces_of(goal)
        ask = WriteInput(
            goal=goal,
            form="plain",
            draw=self.first + n,
            current=[Excerpt(source=module, text=ask_text(self.piece, pieces))],
            bodies=[f"{self.piece.name} in {module}"],
            tests=tests,
            disagreement=between,
            reply="function" if self.first + n == 0 and not tests else "lines",
        )
        key = CallKey(
            task_id=self.session.task_id, iteration=self.iteration, index=self.index + SPAN * n, kind=KIND
        )
        name = f"piece-{self.iteration}-{self.piece.name}" + (f"-again-{n}" if n else "")
        draft = completed(self.piece, self.drafts(key, ask, name).get(module, ""))
        return splice(self.code, draft, self.piece.name, pieces)


def _seconded(
    written: str, piece: Piece, sample: Callable[[str], str | None]
) -> tuple[str, bool, Disagreement | None]:
    """A second opinion on a body that passed its examples: another sample, run beside it on
    inputs varied from the examples (`cairn.tasks.probes`). Agreeing, it seconds the body. If it
    disagrees, one more sample is asked for, shown the input and both values: the body it agrees
    with on every input is written, seconded; agreeing with neither, the disagreement stands and
    the body that agrees with the others on the most inputs is written (`consensus`). A sample
    that fails the examples says nothing. Returns (the module to write, seconded, the
    disagreement)."""
    calls = probe_calls(piece)
    if not calls:
        return written, False, None
    rivals: list[str] = []
    split: Disagreement | None = None
    for _ in range(SECOND_OPINIONS):
        other = sample(_between(split))
        if other is None or examples_fail(other, piece):
            continue
        if (found := disagreement(written, other, calls)) is None:
            return written, True, None
        if any(disagreement(rival, other, calls) is None for rival in rivals):
            return other, True, None
        rivals.append(other)
        split = split or found
    if len(rivals) < 2:
        return written, False, split
    # No two agree: the body nearest to the others is written, and where it differs is said.
    bodies = [written, *rivals]
    chosen = bodies[consensus(bodies, calls)]
    said = next((d for b in bodies if b is not chosen and (d := disagreement(chosen, b, calls))), split)
    return chosen, False, said


def _between(split: Disagreement | None) -> str:
    """The disagreement in the words a sample that settles it is shown."""
    if split is None:
        return ""
    return f"{split.call} returns {split.one} in one and {split.other} in the other"


def examples_fail(code: str, piece: Piece) -> str:
    """What the piece's own examples say of `code` (a whole module), run in a sandboxed process as
    the task's tests run them: "" when they pass (or it has none), else the failures in words."""
    if not piece.examples:
        return ""
    with tempfile.TemporaryDirectory(prefix="cairn-piece-") as folder:
        (Path(folder) / f"{_SUBJECT}.py").write_text(code, encoding="utf-8")
        ran = run_python(
            Path(folder), code=_EXAMPLES_RUN.format(examples=piece.examples + "\n"), timeout_s=20.0
        )
    if ran.outcome == "success":
        return ""
    said = failures_of(ran.stdout, piece.name)
    return said or f"its examples did not run: {ran.summary}"


_SUBJECT = "cairn_piece_subject"
_EXAMPLES_RUN = """\
import doctest
import cairn_piece_subject as subject

test = doctest.DocTestParser().get_doctest({examples!r}, dict(vars(subject)), "the goal", None, 0)
runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
runner.run(test)
raise SystemExit(1 if runner.failures else 0)
"""


def to_ask(pieces: list[Piece], done: list[str], code: str, spent: Collection[str] = ()) -> list[Piece]:
    """The pieces to ask for: not given by the goal, not verified, with samples left (`spent`:
    those whose `DRAWS` are used), and either verified by examples (so a failing one is
    redrawn) or not written yet (one without examples is written once)."""
    stubbed = set(stub_names(code, pieces))
    return [
        p
        for p in pieces
        if not p.given and p.name not in done and p.name not in spent and (p.examples or p.name in stubbed)
    ]


def stub_names(code: str, pieces: list[Piece]) -> list[str]:
    """The pieces the module defines without a body (or not at all)."""
    names = [p.name for p in pieces]
    empty = [found.partition(" in ")[0] for found in stubs({"m.py": code}, names)]
    return [*empty, *(name for name in names if name not in defined(code))]


def runs_of(state: TaskState, reader: FullOutput) -> list[tuple[bool, str]]:
    """Each test run of the task, oldest first: whether it passed, and its whole output."""
    return [(c.outcome == "success", reader(c)) for c in state.calls if c.tool == "run_tests"]


def progress(state: TaskState, reader: FullOutput) -> str | None:
    """How far a piecewise goal got, in words (None for any other task): `2 of 3 functions
    verified by their examples (double, triple); seconded by another sample: double`, and where
    two samples disagree."""
    asked = asked_pieces(state.goal)
    if not asked:
        return None
    done = verified(pieces_of(state.goal), runs_of(state, reader))
    named = f" ({', '.join(done)})" if done else ""
    seconded = [name for name, checked in state.pieces.items() if checked.seconded]
    split = [f"{name}: {c.disagreement.words()}" for name, c in state.pieces.items() if c.disagreement]
    return (
        f"{len(done)} of {len(asked)} functions verified by their examples{named}"
        + (f"; seconded by another sample: {', '.join(seconded)}" if seconded else "")
        + (f"; samples disagree: {'; '.join(split)}" if split else "")
    )


def draws(state: TaskState, iteration: int, index: int) -> int:
    """How often the piece at `index` was asked for before this iteration: its draw number (the
    first ask is the model's likeliest reply, each later one a new sample)."""
    asked = (call.key.rsplit("/", 2) for call in state.model_calls if call.iteration < iteration)
    return sum(1 for _, at, kind in asked if kind == KIND and at.isdigit() and int(at) % SPAN == index)


__all__ = ["KIND", "PIECES_WHY", "asked_pieces", "draws", "module_file", "progress", "step", "to_ask"]
