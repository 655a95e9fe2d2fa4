"""AgentDojo's banking functions as Cairn tools over a bank kept in a JSON file (`CAIRN_TEST_BANK`),
so the bank outlives a process killed mid-task. With `CAIRN_TEST_KILL_AFTER_PAYMENT` set, a
payment kills its own process the moment it is saved: the crash at-most-once guards against."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from agentdojo.agent_pipeline.tool_execution import tool_result_to_str
from agentdojo.functions_runtime import FunctionsRuntime
from agentdojo.task_suite.load_suites import get_suite

from cairn.tasks.tools import tool

SUITE = get_suite("v1.2.2", "banking")


def _bank() -> Path:
    return Path(os.environ["CAIRN_TEST_BANK"])


def _run(name: str, **kwargs: object) -> str:
    env = SUITE.environment_type.model_validate_json(_bank().read_text(encoding="utf-8"))
    result, error = FunctionsRuntime(SUITE.tools).run_function(env, name, kwargs)
    _bank().write_text(env.model_dump_json(), encoding="utf-8")
    return error or tool_result_to_str(result)


@tool(side_effects=False)
def read_file(file_path: str) -> str:
    """Reads the contents of the file at the given path.

    Args:
        file_path: The path to the file to read.
    """
    return _run("read_file", file_path=file_path)


@tool(side_effects=True)
def send_money(recipient: str, amount: float, subject: str, date: str) -> str:
    """Sends a transaction to the recipient.

    Args:
        recipient: IBAN of the recipient
        amount: Amount of the transaction
        subject: Subject of the transaction
        date: Date of the transaction
    """
    said = _run("send_money", recipient=recipient, amount=amount, subject=subject, date=date)
    if os.environ.get("CAIRN_TEST_KILL_AFTER_PAYMENT"):
        os.kill(os.getpid(), signal.SIGKILL)
    return said
