"""How long a reply may be and how long it may take: each call kind's token cap, and the timeout
a cap implies at the model's speed.

>>> REPLY_TOKENS["calculate"], reply_timeout(REPLY_TOKENS["calculate"], None)
(256, 196.8)
"""

from __future__ import annotations

from cairn.tasks.messages.schemas import CallKind, Schema, WriteInput

# The longest reply each call kind asks for (`CAIRN_MODEL_MAX_TOKENS` sets one for all), sized to
# what the kind carries, from the 1.5B's recorded replies (tests/data/real-model/, the team's
# slugify-coding cassette; completion tokens, largest first). A plan names calls and their short
# arguments: 286-608 tokens for 4-7 candidates, 128 at most for one (a `run_python` with its
# code); 8 candidates (deep mode) at 128 each, with half as much again for headroom, is 1,536.
# Files come from the `write` step, answers and reports from `deliver`: those keep the
# baseline's 2,048. A reply that repeats itself is hung up on long before its cap
# (`cairn.tasks.model.stream`); one that hits it is asked again once, for half
# (`cairn.tasks.model.attempts`).
REPLY_TOKENS: dict[CallKind, int] = {
    "plan": 1536,  # at 4,096, HumanEval/123's plans ran 2,000-3,300 tokens each: 18 minutes
    "deliver": 2048,  # a whole report: 33-35 here, 100-400 in the bench's summaries
    "calculate": 256,  # one expression
    "write": 2048,  # whole files: 88-224 (HumanEval); the baseline's cap
    "compress_batch": 4096,  # up to 16 calls (an opening reads 16 files whole) at compress's 95-160 each
    "compress": 512,  # 95-160 (10 replies)
    "synthesize": 512,  # 134-146 (8); unbounded, the 1.5B once repeated one sentence for 3,000 tokens
    "extract_constraint": 256,  # 15-41 (6)
    "detect_task_type": 256,  # 39-52 (4)
    "ask": 256,  # a phrase, or that the files do not say it (the bench's plain asks: 2-40)
    "judge": 1,  # yes or no: its probability is read from the first token's alternatives
    "ledger": 256,  # one short value per field of one row
    "act": 1024,  # an action goal's plan: a few steps (AgentDojo's longest need nine)
    "replan": 1024,  # the steps a plan that did not go as planned still needs
    "docstring": 512,  # a sentence or two; room for the whole function, when a model writes it back
}


# A plain `write` completes the code it shows (a function's stub, a tests file's head): its reply
# is that code and what it lacks. HumanEval/38's test of one function, asked under the kind's cap,
# ran to all 2,048 tokens in 264 s (a 214-token prompt).
PLAIN_HEADROOM = 512  # tokens beyond twice the code shown
CHARS_PER_TOKEN = 3  # Qwen's tokenizer on HumanEval 0-39's prompts: 2.0-4.6 characters a token (3.4)


def reply_cap(kind: CallKind, payload: Schema) -> int:
    """The longest reply one call asks for: its kind's cap, or for a plain `write`, twice the code
    it shows plus `PLAIN_HEADROOM` when that is less.

    >>> from cairn.tasks.messages.schemas import Excerpt
    >>> stub = Excerpt(source="test_a.py", text="from a import f\\n\\n\\ndef test_f():\\n")
    >>> plain, full = WriteInput(goal="g", form="plain", current=[stub]), WriteInput(goal="g")
    >>> reply_cap("write", plain), reply_cap("write", full)
    (532, 2048)
    """
    cap = REPLY_TOKENS[kind]
    if isinstance(payload, WriteInput) and payload.form == "plain":
        shown = sum(len(e.text) for e in payload.current) // CHARS_PER_TOKEN
        return min(cap, 2 * shown + PLAIN_HEADROOM)
    return cap


# Without a measured speed, a reply is timed as a small model on two CPU cores generates it
# (Qwen2.5-Coder-1.5B: 6-8 tokens/s here): a capped reply must be able to finish.
CPU_TOKENS_PER_S = 5.0
PROMPT_SECONDS = 120.0  # reading a long prompt (60-140 tokens/s on CPU), connecting, queueing


def reply_timeout(reply_tokens: int, tokens_per_s: float | None) -> float:
    """Seconds a request may take: the prompt's allowance plus 1.5 times the longest reply's
    generation at the measured speed (a CPU model's when unmeasured).

    >>> reply_timeout(4096, None), reply_timeout(512, 40.0)
    (1348.8, 139.2)
    """
    speed = max(tokens_per_s or CPU_TOKENS_PER_S, 0.5)
    return round(PROMPT_SECONDS + 1.5 * reply_tokens / speed, 1)
