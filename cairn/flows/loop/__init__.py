"""The task loop as plain functions, no Prefect: open a task, run an iteration, validate, decide, finish.

The Prefect room (`cairn.flows.prefect`) runs these as flow runs; tests and benchmarks call them in
process. Each iteration's model steps live in `cairn.flows.steps`.
"""

from __future__ import annotations

from cairn.flows.loop.claim import TaskLock
from cairn.flows.loop.cycle import TaskResult, run_loop
from cairn.flows.loop.iteration import run_iteration
from cairn.flows.loop.request import TaskRequest
from cairn.flows.loop.start import start_task

__all__ = ["TaskLock", "TaskRequest", "TaskResult", "run_iteration", "run_loop", "start_task"]
