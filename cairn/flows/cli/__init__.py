"""The command line: `cairn run`, `show`, `resume`, `search`, `rules`, `server`, `tools`.

`main` is the console script. Commands that run a task reach the Prefect room (`cairn.flows.prefect`)
inside the command, so `cairn --help` and `cairn show` never import Prefect.
"""

from __future__ import annotations

from cairn.flows.cli.app import app, main

__all__ = ["app", "main"]
