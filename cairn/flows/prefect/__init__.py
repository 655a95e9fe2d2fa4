"""Prefect, in one room: the task's flow and its iteration subflows, Cairn's Prefect tasks and their
defaults, deployments, workers, the review form, and the UI pages (what a task shows in the UI).

Nothing outside this room imports `prefect`; the loop (`cairn.flows.loop`) runs here unchanged.

Names load on first use: importing Prefect takes seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn._faces import lazy_names

if TYPE_CHECKING:
    from cairn.flows.prefect.flow import TaskResult, run_task
    from cairn.flows.prefect.internals import fresh_task_run_keys, has_cached_result
    from cairn.flows.prefect.launch import AwaitingReview, ReviewPending, launch, review_at_the_command_line
    from cairn.flows.prefect.serve import deployment_name, serve_task
    from cairn.flows.prefect.task_defaults import iteration_settings, prefect_task
    from cairn.flows.prefect.worker import (
        DEFAULT_POOL,
        ensure_pool,
        resolve_api_url,
        start_worker,
        stop_worker,
    )

__all__ = [
    "DEFAULT_POOL",
    "AwaitingReview",
    "ReviewPending",
    "TaskResult",
    "deployment_name",
    "ensure_pool",
    "fresh_task_run_keys",
    "has_cached_result",
    "iteration_settings",
    "launch",
    "prefect_task",
    "resolve_api_url",
    "review_at_the_command_line",
    "run_task",
    "serve_task",
    "start_worker",
    "stop_worker",
]
_WHERE = {
    "fresh_task_run_keys": "cairn.flows.prefect.internals",
    "TaskResult": "cairn.flows.prefect.flow",
    "run_task": "cairn.flows.prefect.flow",
    "AwaitingReview": "cairn.flows.prefect.launch",
    "ReviewPending": "cairn.flows.prefect.launch",
    "launch": "cairn.flows.prefect.launch",
    "review_at_the_command_line": "cairn.flows.prefect.launch",
    "deployment_name": "cairn.flows.prefect.serve",
    "serve_task": "cairn.flows.prefect.serve",
    "prefect_task": "cairn.flows.prefect.task_defaults",
    "has_cached_result": "cairn.flows.prefect.internals",
    "iteration_settings": "cairn.flows.prefect.task_defaults",
    "DEFAULT_POOL": "cairn.flows.prefect.worker",
    "ensure_pool": "cairn.flows.prefect.worker",
    "resolve_api_url": "cairn.flows.prefect.worker",
    "start_worker": "cairn.flows.prefect.worker",
    "stop_worker": "cairn.flows.prefect.worker",
}

__getattr__ = lazy_names(__name__, _WHERE)
