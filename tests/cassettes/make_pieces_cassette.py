"""Record `pieces_task.jsonl`: a three-function coding goal written piece by piece.

The model is the tests' own protocol-level server (`tests/model_server.py`): it answers each piece's
ask (`write` in its plain form, one function named) with the lines of its body in a fenced block,
as the local 1.5B does; `six_times` comes back wrong on its first draw (`return 7`) and right on the
next; every other request gets the offline model's answer. `cairn run --record` writes what it
answered, with each request's hash, so `replay:PATH` (matched by request) plays a piece's reply
only to that piece's ask, in a resumed process too. `tests/e2e/test_pieces_resume.py` kills the
replayed run in the middle and resumes it. (Cairn runs each piece's example on the spliced module:
`six_times`' first body fails it and is drawn again in the same iteration.)

Regenerate after changing the piece prompt: `.venv/bin/python -m tests.cassettes.make_pieces_cassette`
(a minute: a temporary Prefect server starts).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from cairn.tasks.messages.prompts import PromptError, parse_request
from cairn.tasks.messages.schemas import WriteInput
from tests.model_server import ModelServer

CASSETTE = Path(__file__).with_name("pieces_task.jsonl")
BIN = Path(sys.executable).parent
GOAL = '''Write the Python module solution.py with these functions, and pytest tests in test_solution.py.

```python
def double(x: int) -> int:
    """Twice x.
    >>> double(2)
    4
    """


def triple(x: int) -> int:
    """Three times x.
    >>> triple(2)
    6
    """


def six_times(x: int) -> int:
    """double(triple(x)).
    >>> six_times(1)
    6
    """
```
'''
BODIES = {"double": "return x + x", "triple": "return 3 * x", "six_times": "return double(triple(x))"}
OPTIONS = ["--task-type", "coding_task", "--compress", "each", "--max-iterations", "8"]


def piece_reply(messages: list[dict[str, Any]]) -> str | None:
    """A piece's function, completed in a fenced block; None for any other request."""
    try:
        _kind, payload = parse_request(messages)
    except PromptError:  # the preflight's probe
        return None
    if not (isinstance(payload, WriteInput) and payload.form == "plain" and len(payload.bodies) == 1):
        return None
    name = payload.bodies[0].partition(" in ")[0]
    body = "return 7" if name == "six_times" and payload.draw == 0 else BODIES[name]
    if payload.reply == "lines":  # the lines after the docstring, as the local 1.5B replies to them
        return f"```python\n    {body}\n```"
    stub = payload.current[0].text.rstrip()
    return f"```python\n{stub}\n    {body}\n```"


def record(cassette: Path = CASSETTE) -> None:
    cassette.unlink(missing_ok=True)
    home = Path(tempfile.mkdtemp(prefix="cairn-pieces-"))
    with ModelServer() as server:
        server.respond = piece_reply
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIRN_", "PREFECT_API_URL"))}
        env |= {"OPENAI_API_BASE": server.url, "OPENAI_API_KEY": "x", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "PREFECT_HOME": str(home / "prefect"),
                "CAIRN_HOME": str(home / "cairn")}  # fmt: skip
        args = [
            "run",
            GOAL,
            "--model",
            "openai/pieces",
            "--record",
            str(cassette),
            "--workspace",
            str(home / "ws"),
        ]
        proc = subprocess.run([str(BIN / "cairn"), *args, *OPTIONS], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the recorded run ended {proc.returncode}: {proc.stderr[-2000:]}")
    print(f"wrote {cassette}")


if __name__ == "__main__":
    record()
