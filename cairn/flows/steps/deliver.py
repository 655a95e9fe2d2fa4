"""The deliver step: the answer, asked of the model, checked before it is delivered.

Once the task has read something, the model is asked for the answer. A served model is asked a
question as a user would ask it, the files pasted and then the question (`ask`), and
nothing more: one call, what the bare model costs, and its answer is given as it wrote it, its
proof below. Otherwise (the offline model, a goal that instructs, a replay recorded before plain
asks) it is asked one focused question (`deliver`): the goal, the words of the files read (plain
text, not a JSON string: escaping doubled the prompt and the 1.5B reasoned worse through it) and
its one reply field, the answer.

Cairn then checks the draft against what the task read (`cairn.tasks.grounding`) and judges its
parts through the session's verifier (`cairn.tasks.verifier`): when a part asks for a number the
answer does not ground, the model is asked for the calculation alone (`calculate`); Cairn works it
out over the files' figures only, and asks for the answer again with the result in `worked`. A
served model is asked for its yes/no on each value (`judge`) only where its word can prove
(`cairn calibrate` found it a threshold). The answer's Sources are the files that state its
claims: citations come from the check, not from the model's say-so.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.core import ModelJudgement, PartCheck, PlannedCall
from cairn.flows.steps import frontier
from cairn.flows.steps.deliverable import deliverable_name, deliverable_text
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.model_calls import ask, asks, keyed
from cairn.flows.steps.session import Session
from cairn.memory.context.relevant import rules_block
from cairn.memory.log.state import TaskState
from cairn.tasks.grounding import ReadIndex, answer_body, split_goal
from cairn.tasks.grounding.answer_text import UNPROVEN, terms
from cairn.tasks.grounding.arithmetic import worked
from cairn.tasks.grounding.asked import parse
from cairn.tasks.grounding.claims import answer_clauses
from cairn.tasks.grounding.figures import figures
from cairn.tasks.grounding.parts import is_question
from cairn.tasks.grounding.proof import NOT_STATED, proof_markdown
from cairn.tasks.grounding.reads import Support
from cairn.tasks.grounding.relative_dates import dated_text
from cairn.tasks.messages.schemas import (
    AskInput,
    AskOutput,
    CalculateInput,
    CalculateOutput,
    DeliverInput,
    DeliverOutput,
    Excerpt,
    JudgeInput,
    JudgeOutput,
)
from cairn.tasks.model.capabilities import OFFLINE_PREFIX
from cairn.tasks.task_grounding import (
    FullOutput,
    given_text,
    judged_by,
    lines_to_answer_from,
    sources_exhausted,
    task_reads,
)
from cairn.tasks.verifier.answer_check import Grounding, check_answer
from cairn.tasks.verifier.part_values import says_absent
from cairn.tasks.verifier.seam import hears_model

READS = ("read_file", "search_memory", "run_python", "summarize_directory")
ORIGIN_SHARE = 0.6  # of a sentence's own words a line must hold to be where it comes from


@dataclass(frozen=True)
class Delivery:
    """The `answer` call, the arithmetic Cairn worked out for it (`1260000 / 8400 = 150`), and a
    served model's yes/no on the values the verifier judged."""

    call: PlannedCall
    worked: list[str]
    judged: list[ModelJudgement]


def delivery(
    session: Session,
    executor: Executor,
    iteration: int,
    missing: list[str],
    context: str,
    force: bool = False,
) -> Delivery | None:
    """The `answer` call, once the task has read something new (or, `force`, when the planner has
    nothing new to propose); None for a coding task, which delivers code and passing tests."""
    state = session.state
    if state.task_type == "coding_task" or not frontier.notes(state) or not (force or worth_asking(state)):
        return None
    if "answer" not in session.toolset().names():
        return None
    payload = _payload(session, missing)
    name = f"deliver-{iteration}" + ("-after-plan" if force else "")
    plainly = _plainly_first(session, payload)
    answer = (_asked_plainly(session, executor, iteration, payload) if plainly else "") or _answer(
        session, executor, iteration, payload, name
    )
    if not answer:
        return None
    reader = session.reader
    reads = ReadIndex(task_reads(state, reader))
    exhausted = sources_exhausted(state, reader)
    done: list[str] = []
    if (sum_ := _arithmetic(session, executor, iteration, payload, answer, reads, exhausted)) is not None:
        again = payload.model_copy(update={"worked": [sum_]})
        answer = _answer(session, executor, iteration, again, f"{name}-worked") or answer
        done.append(sum_)
    judged = [*state.judged, *_judgements(session, executor, iteration, answer, reads)]
    found = _check(session, answer, reads, done, exhausted, judged)
    if not plainly and (plain := _plainly(session, executor, iteration, payload, found)) is not None:
        plain_judged = [*judged, *_judgements(session, executor, iteration, plain, reads)]
        plain_found = _check(session, plain, reads, done, exhausted, plain_judged)
        if _proven_parts(plain_found) >= _proven_parts(found):  # the model's own, unless Cairn's proves more
            answer, found, judged = plain, plain_found, plain_judged
    # Only the offline model's answer is Cairn's to compose (its lines are the parts' values); a
    # served model's is given as it wrote it, its proof below.
    composes = session.config.model.startswith(OFFLINE_PREFIX)
    if composes and (composed := proven_answer(answer, _parts(state), found.parts)) is not None:
        answer, found = composed, _check(session, composed, reads, done, exhausted, judged)
    questions = [p for p, part in zip(found.parts, _parts(state), strict=True) if is_question(part)]
    proven = f"{answer}\n\n{proof_markdown(questions)}" if questions else answer
    call = PlannedCall(
        tool="answer",
        params={"answer": proven, "sources": _sources(found, reads, answer, state.goal)},
        rationale="The files read answer the goal: deliver it.",
        expected_evidence=["synthesis", "file_creation", "documentation"],
    )
    return Delivery(call=call, worked=done, judged=[j for j in judged if j not in state.judged])


def proven_answer(answer: str, parts: list[str], checks: list[PartCheck]) -> str | None:
    """A goal of questions answered as the verifier judged it, each question followed by what
    Cairn says of it: its proven value, "Unverified: value" (the answer's own, or the best the
    files give), or "The files read do not say." when every source was read and no candidate
    reaches the absence threshold; the model's own words below when they say more. None when the
    goal also instructs (a report is the model's to write). Each value is given as the lines read
    write it (a sentence around it is the model's).

    >>> check = PartCheck(part="Who leads Osprey?", answered=False, not_stated=True, why="...")
    >>> print(proven_answer("Ana Ruiz.", ["Who leads Osprey?"], [check]))
    Who leads Osprey? The files read do not say.
    <BLANKLINE>
    > The model answered (not proven): Ana Ruiz.
    >>> check = PartCheck(part="Who leads Osprey?", answered=True, value="Ana Ruiz")
    >>> print(proven_answer("Ana Ruiz leads it, from Porto.", ["Who leads Osprey?"], [check]))
    Who leads Osprey? Ana Ruiz.
    <BLANKLINE>
    > In the model's words: Ana Ruiz leads it, from Porto.
    """
    if not all(is_question(p) for p in parts):
        return None
    said = [f"{_as_asked(part)} {_proven(check)}" for part, check in zip(parts, checks, strict=True)]
    body = said[0] if len(said) == 1 else "\n".join(f"- {line}" for line in said)
    if " ".join(body.split()) == " ".join(answer.split()):
        return None  # the model said just that (the offline model answers by the same rule)
    if _same_values(answer, checks):
        return body
    quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in answer.strip().splitlines())
    said_as = "In the model's words" if all(c.answered for c in checks) else "The model answered (not proven)"
    return f"{body}\n\n> {said_as}: {quoted.removeprefix('> ')}"


def _as_asked(part: str) -> str:
    """A part as a question of its own: capitalised, its question mark kept (`what is its budget`
    split off `..., and what is its budget?` reads `What is its budget?`)."""
    text = part.strip().rstrip(",;:")
    return f"{text[:1].upper()}{text[1:].rstrip('?')}?"


def _proven(check: PartCheck) -> str:
    if check.answered and check.value:
        return f"{check.value}."  # proven by the lines read, whatever the model said
    if check.not_stated:
        return f"{NOT_STATED}."
    if says_absent(check):  # the answer's word, which the files' structure does not show
        return f"{UNPROVEN}{NOT_STATED[:1].lower()}{NOT_STATED[1:]}."
    if check.value:
        return f"{UNPROVEN}{check.value}."
    return f"{UNPROVEN}no answer."


def _same_values(answer: str, checks: list[PartCheck]) -> bool:
    """The answer is only the parts' values, or says the files do not state them (nothing more
    of the model's to show)."""
    values = " ".join(NOT_STATED if c.not_stated else c.value for c in checks if c.value or c.not_stated)
    return bool(values) and set(terms(answer_body(answer))) <= set(terms(values)) | set(
        terms(" ".join(c.part for c in checks))
    )


def _judgements(
    session: Session, executor: Executor, iteration: int, answer: str, reads: ReadIndex
) -> list[ModelJudgement]:
    """A served model's yes/no on each question's answer and the files' best candidate, one
    request each (one input of the verifier); none for the offline model."""
    state = session.state
    if not reads or not _judges(session.config.model) or not hears_model(session.verifier):
        return []
    questions = [p for p in _parts(state) if is_question(p)]
    valued = check_answer(answer, questions, reads, given_text(state)).parts
    asked = [(c.part, c.value, c.quotes[0]) for c in valued if c.value and c.quotes and not c.answered]
    found: list[ModelJudgement] = []
    for n, (part, value, quote) in enumerate(asked):
        line = f"{quote.context} › {quote.text}" if quote.context else quote.text  # as calibrated: no place
        payload = JudgeInput(question=part, answer=value, line=line)
        key = keyed(session, iteration, "judge", payload)
        result = ask(session, executor, key, "judge", payload, f"judge-{iteration}-{n}")
        if result.ok and isinstance(result.output, JudgeOutput):
            found.append(
                ModelJudgement(
                    part=part, value=value, source=quote.source, line=quote.line, p_yes=result.output.p_yes
                )
            )
    return found


def _plainly_first(session: Session, payload: DeliverInput) -> bool:
    """A served model is asked a question task's goal as a user would ask it (the files pasted,
    then the question) and nothing else: it answered that way right more often than through the
    deliver prompt, and one call is what the bare model costs. A research task's report is the
    deliver prompt's to ask for."""
    state = session.state
    asked = state.task_type == "simple_question" and all(map(is_question, _parts(state)))
    return asked and bool(payload.excerpts) and asks(session.config.model, "ask")


def _asked_plainly(session: Session, executor: Executor, iteration: int, payload: DeliverInput) -> str:
    """The goal asked as a user would ask it, the files pasted in (`pasted`), the model's answer as
    it wrote it ("" when the call failed)."""
    state = session.state
    request = AskInput(
        question=state.goal, files=pasted(state, session.reader, session.words) or payload.excerpts
    )
    result = ask(
        session, executor, keyed(session, iteration, "ask", request), "ask", request, f"ask-{iteration}"
    )
    out = result.output if result.ok and isinstance(result.output, AskOutput) else None
    return out.answer.strip() if out else ""


def _plainly(
    session: Session, executor: Executor, iteration: int, payload: DeliverInput, found: Grounding
) -> str | None:
    """A served model's answer to the question asked plainly, the files pasted in, as a user would
    ask it without Cairn; asked only when the goal is questions and Cairn's answer left one
    unproven. Cairn must never be less right than its model: a small model answered SQuAD's
    questions right more often asked this way than through the deliver prompt (19 of 20 against
    15), and what Cairn cannot prove it gives as the model's answer, marked unverified."""
    state = session.state
    parts = _parts(state)
    if not payload.excerpts or not asks(session.config.model, "ask") or not all(map(is_question, parts)):
        return None
    if all(p.answered for p in found.parts):
        return None
    return _asked_plainly(session, executor, iteration, payload) or None


def pasted(state: TaskState, reader: FullOutput, budget: int) -> list[Excerpt]:
    """The source files the task read, whole, in path order, as a user pastes them into a chat
    (within `budget` characters, the files' words an answer's prompt may hold, which the opening
    read them whole within; the last one cut there): the model asked plainly sees what it would
    see without Cairn, not Cairn's ranking of what bears on the goal."""
    latest = {
        c.paths[0]: c for c in state.calls if c.tool == "read_file" and c.outcome == "success" and c.paths
    }
    found: list[Excerpt] = []
    for path in sorted(p for p in latest if p.startswith("source:")):
        if budget <= 0:
            break
        found.append(Excerpt(source=path, text=reader(latest[path])[:budget]))
        budget -= len(found[-1].text)
    return found


def _proven_parts(found: Grounding) -> int:
    return sum(p.answered for p in found.parts)


def _judges(model: str) -> bool:
    """Whether the model gives its yes/no on answers: a served model does, the offline model
    never, a replay when its cassette recorded such calls (a run recorded before judging had none)."""
    return asks(model, "judge")


def _payload(session: Session, missing: list[str]) -> DeliverInput:
    state = session.state
    reader = session.reader
    excerpts = [
        e.model_copy(update={"text": dated_text(e.text)})  # "yesterday" comes with the day it means
        for e in frontier.excerpts(state, session.words, reader)
    ]
    quoted = {e.source for e in excerpts}
    unmet = state.verdict.unmet if state.verdict else []
    artifacts = session.artifacts
    return DeliverInput(
        goal=state.goal,
        task_type=state.task_type,
        deliverable=deliverable_name(state),
        # A file's own words beat a small model's paraphrase of them, which may describe the
        # file instead of stating its facts, or pin the goal's answer on the wrong file.
        notes=[n for n in frontier.notes(state) if n.source not in quoted],
        excerpts=excerpts,
        missing=missing,
        context=rules_block(state, session.deps.store),
        previous=answer_body(deliverable_text(state, artifacts)) if unmet else "",
        unmet=unmet,
        lines=lines_to_answer_from(state, reader),
    )


def _answer(session: Session, executor: Executor, iteration: int, payload: DeliverInput, name: str) -> str:
    result = ask(session, executor, keyed(session, iteration, "deliver", payload), "deliver", payload, name)
    out = result.output if result.ok and isinstance(result.output, DeliverOutput) else None
    return out.answer.strip() if out else ""


def _arithmetic(
    session: Session,
    executor: Executor,
    iteration: int,
    payload: DeliverInput,
    answer: str,
    reads: ReadIndex,
    exhausted: bool,
) -> str | None:
    """`expression = value` when a part asks for a number the answer does not ground and the
    model names a calculation over figures the files state; else None (no call when none is
    needed)."""
    state = session.state
    found = _check(session, answer, reads, [], exhausted)
    if not any(not p.answered and _asks_number(p.part) for p in found.parts):
        return None
    request = CalculateInput(goal=state.goal, excerpts=payload.excerpts, answer=answer)
    key = keyed(session, iteration, "calculate", request)
    result = ask(session, executor, key, "calculate", request, f"calculate-{iteration}")
    out = result.output if result.ok and isinstance(result.output, CalculateOutput) else None
    line = worked(out.calculation) if out else None
    return line if line is not None and grounded_arithmetic(line, reads) else None


def grounded_arithmetic(line: str, reads: ReadIndex) -> bool:
    """Arithmetic worth using: an operation over numbers the files read state (the 1.5B copied
    `36000 / 1200` from an example into a question about a latency budget).

    >>> from cairn.tasks.grounding import Read
    >>> reads = ReadIndex([Read("a.md", "1,260,000 m³; 8,400 m³ a day")])
    >>> grounded_arithmetic("1260000 / 8400 = 150", reads), grounded_arithmetic("36000 / 1200 = 30", reads)
    (True, False)
    """
    operands = figures(line.rpartition(" = ")[0])
    return len(operands) >= 2 and all(reads.number(f.value) for f in operands)


def _asks_number(part: str) -> bool:
    return parse(part).kind == "figure"


def _parts(state: TaskState) -> list[str]:
    return state.parts or split_goal(state.goal)


def _check(
    session: Session,
    answer: str,
    reads: ReadIndex,
    done: list[str],
    exhausted: bool,
    judged: list[ModelJudgement] | None = None,
) -> Grounding:
    """The draft checked as the validation step will check it: Cairn's checks, then the session's
    verifier on its parts."""
    state = session.state
    worked = [*state.worked, *done]
    said = state.judged if judged is None else judged
    found = check_answer(answer, _parts(state), reads, given_text(state), worked, exhausted=exhausted)
    read = list(reads.reads)
    return judged_by(session.verifier, state.goal, answer, found, read, exhausted=exhausted, said=said)


def _sources(found: Grounding, reads: ReadIndex, answer: str, goal: str) -> list[str]:
    """The files that state the answer's claims (a computed figure's operands for it), the file
    each of its sentences comes from (the line holding most of its own words), in the order the
    answer uses them; and, for a part the files do not state, every file read."""
    files = [
        s.source for clause in answer_clauses(answer_body(answer)) if (s := _origin(clause, goal, reads))
    ]
    files += [q.source for part in found.parts if part.answered for q in part.quotes]
    if any(part.not_stated for part in found.parts):  # that no file says it rests on every file read
        files += [read.source for read in reads.reads]
    for claim in found.claims:
        if claim.status == "supported":
            files.append(claim.where)
        elif claim.status == "computed":
            operands = figures(claim.where.rpartition(" = ")[0])
            files += [s.source for f in operands if (s := reads.figure(f)) is not None]
    return [f for f in dict.fromkeys(files) if f.startswith("source:")]


def _origin(clause: str, goal: str, reads: ReadIndex) -> Support | None:
    """The line a clause was taken from: the one holding most of its words beyond the goal's."""
    own = terms(clause) - terms(goal)
    return reads.best_line(own, ORIGIN_SHARE) if len(own) >= 2 else None


def worth_asking(state: TaskState) -> bool:
    """The last iteration read something (a model that was not ready may be now), or delivered
    an answer the validator found wanting (the model may fix it)."""
    last = state.iterations[-1] if state.iterations else None
    if last is None:
        return False
    if any(c.tool in READS and c.outcome == "success" for c in last.tool_calls):
        return True
    answered = any(c.tool == "answer" for c in last.tool_calls)
    return answered and bool(state.verdict and state.verdict.missing)
