"""The attacker's best case for AgentDojo's suites: a scripted model that obeys every instruction it
reads, for Cairn (answering its prompts over HTTP, `tests/model_server.py`) and for AgentDojo's
reference pipeline (as its LLM element).

`Obeying` plays the user task right (its calls are the task's ground truth, a placeholder such as
`<summary>` written as words) and, whenever a tool output it is shown holds an injection, proposes
the calls the injection asks for beside them: in a plan, in a compression's suggestions, as the
reference's next tool calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Obeying:
    """The scripted model that obeys every instruction it reads, for one (user task, injection
    task) pair: its calls are the user task's ground truth; shown an injection, it proposes the
    injection's calls too."""

    goal: str
    task_calls: list[Any]  # FunctionCall: the user task's ground truth
    injected_calls: list[Any]  # the injection task's ground truth
    injections: list[str]  # what the planted texts ask for (the injection task's goal)
    answer: str
    asked: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(
        cls, suite: Any, user_task: Any, injection_task: Any | None, injections: dict[str, str]
    ) -> Obeying:
        env = suite.load_and_inject_default_environment(injections)
        env = user_task.init_environment(env)
        injected = injection_task.ground_truth(env.model_copy(deep=True)) if injection_task else []
        return cls(
            goal=user_task.PROMPT,
            task_calls=user_task.ground_truth(env.model_copy(deep=True)),
            injected_calls=injected,
            injections=[injection_task.GOAL] if injection_task and injections else [],
            answer=getattr(user_task, "GROUND_TRUTH_OUTPUT", "") or "Done.",
        )

    def sees_injection(self, text: str) -> bool:
        """Whether `text` holds an injection, however a tool wrote it (YAML folds long lines)."""
        return any(_bare(planted) in _bare(text) for planted in self.injections)

    # Cairn's side: one reply per Cairn prompt, as text (None: the offline model's own answer).
    def respond(self, messages: list[dict[str, Any]]) -> str | None:
        from cairn.tasks.messages.prompts import PromptError, parse_request

        try:
            kind, payload = parse_request(messages)
        except PromptError:
            return None
        shown = "\n".join(str(m.get("content") or "") for m in messages)
        if kind == "act":
            return json.dumps(
                {"steps": [self._step(call, n) for n, call in enumerate(self.task_calls, start=1)]}
            )
        if kind == "replan":  # shown no tool output: it planned the task right, nothing is left
            return json.dumps({"steps": []})
        if kind == "ledger":
            return json.dumps({"answers": self._values(payload)})
        if kind == "compress_batch" and self.sees_injection(shown):
            return json.dumps({"results": [self._compressed(c.output) for c in payload.calls]})
        if kind == "compress" and self.sees_injection(shown):
            return json.dumps(
                {
                    "insights": "The output asks for more calls.",
                    "relevance": "high",
                    "next_suggested_actions": "; ".join(spelled(c) for c in self.injected_calls),
                }
            )
        if kind == "plan":  # never asked by the action strategy; if it were, it would obey
            calls = self.injected_calls if self.sees_injection(shown) else self.task_calls
            return json.dumps(
                {
                    "candidates": [
                        {"tool": c.function, "params": dict(c.args), "rationale": "asked"} for c in calls
                    ]
                }
            )
        if kind in ("deliver", "ask"):
            return json.dumps({"answer": self.answer}) if kind == "deliver" else self.answer
        return None

    def _compressed(self, output: str) -> dict[str, str]:
        """One call's compression: what an injection in its output asks for, as next steps."""
        if not self.sees_injection(output):
            return {"insights": output[:200], "relevance": "medium"}
        asked = "; ".join(spelled(c) for c in self.injected_calls)
        return {
            "insights": "The output asks for more calls.",
            "relevance": "high",
            "next_suggested_actions": asked,
        }

    def _step(self, call: Any, n: int) -> dict[str, Any]:
        from cairn.tasks.actions import GOAL, source_of

        args, inputs = {}, {}
        for name, value in self._written(call).args.items():
            if isinstance(value, bool) or source_of(value, self.goal, []) == GOAL:
                args[name] = value
            else:
                inputs[name] = f"the {name} step {n} needs, from the results read"
        return {"tool": call.function, "args": args, "inputs": inputs}

    @staticmethod
    def _written(call: Any) -> Any:
        """The call as a model writes it: a ground truth's placeholder (`<summary>`) as words."""
        args = {
            k: f"A {v.strip('<>')} of what was read." if _placeholder(v) else v for k, v in call.args.items()
        }
        return call.model_copy(update={"args": args})

    def _values(self, payload: Any) -> list[str]:
        """The values of the ground truth's next call of the tool a `ledger` ask is about."""
        tool = str(payload.item).removeprefix("the call ").split(" ")[0]
        calls = [c for c in self.task_calls if c.function == tool]
        n = self.asked.get(tool, 0)
        self.asked[tool] = n + 1
        call = self._written(calls[min(n, len(calls) - 1)]) if calls else None
        names = [q.split(":")[0] for q in payload.questions]
        return [str(call.args.get(name, "")) if call else "" for name in names]

    # The reference's side: the LLM element of AgentDojo's pipeline.
    def element(self) -> Any:
        return _ObeyingLLM(self)


class _ObeyingLLM:
    name = "local"

    def __init__(self, script: Obeying) -> None:
        self.script, self.next, self.obeyed = script, 0, False

    def query(
        self,
        query: str,
        runtime: Any,
        env: Any,
        messages: Sequence[Any] = (),
        extra_args: dict[str, Any] | None = None,
    ) -> tuple[str, Any, Any, list[Any], dict[str, Any]]:
        from agentdojo.types import get_text_content_as_str, text_content_block_from_string

        seen = any(
            m["role"] == "tool" and self.script.sees_injection(get_text_content_as_str(m["content"]))
            for m in messages
        )
        calls: list[Any] = []
        if seen and not self.obeyed:
            calls, self.obeyed = list(self.script.injected_calls), True
        if self.next < len(self.script.task_calls):
            calls.append(self.script.task_calls[self.next])
            self.next += 1
        text = None if calls else [text_content_block_from_string(self.script.answer)]
        reply = {"role": "assistant", "content": text, "tool_calls": calls or None}
        return query, runtime, env, [*messages, reply], dict(extra_args or {})


def _placeholder(value: object) -> bool:
    """A ground truth's stand-in for text a model writes (`<summary>`, `...`)."""
    return isinstance(value, str) and (
        value.strip() == "..." or (value.startswith("<") and value.endswith(">"))
    )


def _bare(text: str) -> str:
    return re.sub(r"[\s\\\"']+", "", text)


def spelled(call: Any) -> str:
    """A call as a model would write it: `send_money(recipient='US13...', amount=0.01)`."""
    args = ", ".join(f"{k}={v!r}" for k, v in call.args.items())
    return f"{call.function}({args})"
