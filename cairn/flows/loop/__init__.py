"""The task loop as plain functions, no Prefect: open a task, run an iteration, validate, decide, finish.

The Prefect room (`cairn.flows.prefect`) runs these as flow runs; tests and benchmarks call them in
process. Each iteration's model steps live in `cairn.flows.steps`.
"""

from __future__ import annotations

from cairn.flows.loop.claim import TaskBusy, TaskLock
from cairn.flows.loop.cycle import (
    ANSWER_KEPT,
    NoArtifacts,
    NoPages,
    NoReview,
    Publisher,
    Reviewer,
    TaskResult,
    finish,
    has_new_evidence,
    run_loop,
    validate_now,
)
from cairn.flows.loop.iteration import IterationSummary, run_iteration
from cairn.flows.loop.outcome import report_excerpt, result_markdown, totals
from cairn.flows.loop.policy import AWAITING_REVIEW, BUDGET, MODEL_UNAVAILABLE, Decision, awaiting_review
from cairn.flows.loop.preflight import learnt, preflight, record_probe
from cairn.flows.loop.reopen import check_untampered, ready_to_continue
from cairn.flows.loop.request import Checked, TaskRequest, task_id_for
from cairn.flows.loop.standing_rules import give_feedback, list_rules, retire_rule
from cairn.flows.loop.start import checked_model, extract_constraint, open_task, start_task
from cairn.flows.loop.task_tools import prepare_tools, ready_to_run, record_tools
from cairn.flows.loop.uncertain import check_before_run

__all__ = [
    "ANSWER_KEPT",
    "AWAITING_REVIEW",
    "BUDGET",
    "MODEL_UNAVAILABLE",
    "Checked",
    "Decision",
    "IterationSummary",
    "NoArtifacts",
    "NoPages",
    "NoReview",
    "Publisher",
    "Reviewer",
    "TaskBusy",
    "TaskLock",
    "TaskRequest",
    "TaskResult",
    "awaiting_review",
    "check_before_run",
    "check_untampered",
    "checked_model",
    "extract_constraint",
    "finish",
    "give_feedback",
    "has_new_evidence",
    "learnt",
    "list_rules",
    "open_task",
    "preflight",
    "prepare_tools",
    "ready_to_continue",
    "ready_to_run",
    "record_probe",
    "record_tools",
    "report_excerpt",
    "result_markdown",
    "retire_rule",
    "run_iteration",
    "run_loop",
    "start_task",
    "task_id_for",
    "totals",
    "validate_now",
]
