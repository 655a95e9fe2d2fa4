"""Process set-up at the entry point, before Prefect or litellm are imported.

Environment variables are the only way to configure some of them for a whole process, so this is
the one module that writes `os.environ`.
"""

from __future__ import annotations

import logging
import os
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cairn.core import UsageError
from cairn.flows.server.ephemeral import START_TIMEOUT_S, configured_api_url, start_ephemeral
from cairn.flows.server.server import SERVER_TUNING, healthy, read_info
from cairn.flows.settings import cairn_home
from cairn.redact import redact, register_secrets, registered_secrets, secrets_from_env

QUIET = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no network fetch of the cost map at import
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "GX_ANALYTICS_ENABLED": "false",
    "PREFECT_UI_ENABLED": "false",  # an ephemeral server needs no UI assets
    "PREFECT_LOGGING_TO_API_BATCH_INTERVAL": "0.3",
    # Cairn's own loggers (`cairn.task`, `cairn.model`, ...) go where Prefect's go: the terminal and
    # the run's logs in the UI.
    "PREFECT_LOGGING_EXTRA_LOGGERS": "cairn",
}


# Prefect's watchers of the server (cancellation, suspension, events): when the server goes away
# they warn with a traceback before Cairn's guard (`cairn.flows.cli.guard`) stops the run in one
# line; their warning stays, one line.
SERVER_WATCHERS = (
    "prefect.FlowRunCancellingObserver",
    "prefect.FlowRunSuspendingObserver",
    "prefect.events.clients",
    "prefect.events.worker",
)


def without_traceback(record: logging.LogRecord) -> bool:
    """Keep the record, drop its traceback.

    >>> record = logging.LogRecord("x", logging.WARNING, "", 0, "gone", None, (OSError, OSError(), None))
    >>> without_traceback(record), record.exc_info
    (True, None)
    """
    record.exc_info, record.exc_text = None, None
    return True


def prepare(workspace: Path) -> str:
    """Point Prefect at the workspace's result storage and at `cairn server`'s server when one is
    running (else ephemeral mode); returns where runs go, for the user."""

    for name, value in {**QUIET, **SERVER_TUNING}.items():  # the tuning reaches an ephemeral server too
        os.environ.setdefault(name, value)
    # The story of a run (task type, rules, failed model calls) at INFO, in the terminal and the UI.
    logging.getLogger("cairn").setLevel(logging.INFO)
    for name in SERVER_WATCHERS:
        logging.getLogger(name).addFilter(without_traceback)
    results = workspace / "results"
    results.mkdir(parents=True, exist_ok=True)
    os.environ["PREFECT_RESULTS_LOCAL_STORAGE_PATH"] = str(results)
    os.environ.setdefault("PREFECT_RESULTS_PERSIST_BY_DEFAULT", "true")
    api = os.environ.get("PREFECT_API_URL")
    if api:
        return f"Prefect server at {api}"
    configured = configured_api_url(os.environ, Path.cwd())
    if configured:  # a profile, .env or prefect.toml names a server: Prefect will use it
        return f"Prefect server at {configured} (Prefect's settings)"
    server = read_info(cairn_home())
    if server is not None and healthy(server.api_url):
        os.environ["PREFECT_API_URL"] = server.api_url
        os.environ.setdefault("PREFECT_UI_URL", server.ui_url)
        return f"Prefect server at {server.api_url} (cairn server; UI {server.ui_url})"
    return _start_ephemeral()


def _start_ephemeral() -> str:
    """Prefect's ephemeral mode, with a server this process owns: it dies with us, however we die
    (`cairn.flows.server.ephemeral`)."""

    try:
        timeout = float(os.environ.get("CAIRN_SERVER_START_TIMEOUT") or START_TIMEOUT_S)
    except ValueError:
        raise UsageError("CAIRN_SERVER_START_TIMEOUT must be a number of seconds") from None
    home = cairn_home()
    home.mkdir(parents=True, exist_ok=True)
    server = start_ephemeral(timeout, log=home / "ephemeral-server.log")
    os.environ["PREFECT_API_URL"] = server.api_url
    return "Prefect ephemeral mode (a temporary server; `cairn server start` keeps one running)"


def protect_secrets(env: Mapping[str, str] = os.environ) -> int:
    """Register the values of secret-named variables with `cairn.redact` and redact every log
    record of the process; returns how many values are known. Idempotent.

    Called once at the entry point: after it, every `redact` call (history, results, outputs, the
    index) knows the values too, and no log line, Prefect's API log handler included, carries one.
    """

    register_secrets(secrets_from_env(env))
    factory = logging.getLogRecordFactory()
    if not getattr(factory, "cairn_redacts", False):
        logging.setLogRecordFactory(_redacting(factory))
    return len(registered_secrets())


def _redacting(factory: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    # A record factory, not a handler filter: it sees every record of every logger, whichever
    # handlers Prefect (re)configures later, before any handler formats or ships it.

    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        try:
            record.msg, record.args = redact(record.getMessage()), None
        except Exception:  # a malformed record stays as logging would report it
            return record
        if record.exc_info and record.exc_info[0] is not None:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        return record

    make.cairn_redacts = True  # type: ignore[attr-defined]
    return make
