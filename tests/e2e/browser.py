"""A real browser on a real `cairn server start`: fixtures for the UI tests and the screenshot script.

Playwright (the PyPI package) drives Debian's Chromium (`/usr/bin/chromium`, which the suite
installs with apt-get before the run when it is missing: `tests/system.py`); no browser is ever
downloaded. The flags keep Chromium off the network. A test that
fails leaves a screenshot of its page in `test-screenshots/` (`page_for`; the hook that keeps each
test's report on its item is in `tests/e2e/conftest.py`).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import BIN, ROOT, free_port
from tests.system import chromium_path

SHOTS = Path(os.environ.get("CAIRN_TEST_SCREENSHOTS", ROOT / "test-screenshots"))
QUIET_FLAGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--metrics-recording-only",
]


@dataclass(frozen=True)
class UiServer:
    home: Path
    api_url: str
    ui_url: str
    env: dict[str, str]  # for `cairn` subprocesses: CAIRN_HOME here, no PREFECT_API_URL

    def flow_run(self, flow_run_id: str) -> dict[str, Any]:
        response = httpx.get(f"{self.api_url}/flow_runs/{flow_run_id}", timeout=10)
        response.raise_for_status()
        return dict(response.json())

    def runs_named(self, name: str) -> list[dict[str, Any]]:
        body = {"flow_runs": {"name": {"any_": [name]}}, "sort": "START_TIME_DESC", "limit": 20}
        response = httpx.post(f"{self.api_url}/flow_runs/filter", json=body, timeout=10)
        response.raise_for_status()
        return list(response.json())

    def state_id(self, flow_run_id: str) -> str:
        return str(self.flow_run(flow_run_id)["state"]["id"])

    def wait_state(self, flow_run_id: str, states: set[str], timeout: float, after: str | None = None) -> str:
        """The run's state type once it is one of `states`. `after`: the id of the state the run
        was in before a click; it is looked past, since the browser's request may reach the server
        after the first look (issue 35: the Crashed state a Retry was about to leave, read back
        while the Retry was on its way, made a Retry that went on to run look crashed)."""
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            current = self.flow_run(flow_run_id)["state"]
            state = str(current["type"])
            if state in states and current["id"] != after:
                return state
            time.sleep(0.5)
        return state

    def artifact_id(self, key: str) -> str:
        body = {"artifacts": {"key": {"any_": [key]}}, "sort": "CREATED_DESC", "limit": 1}
        response = httpx.post(f"{self.api_url}/artifacts/filter", json=body, timeout=10)
        response.raise_for_status()
        found = response.json()
        assert found, f"no artifact {key}"
        return str(found[0]["id"])


@contextmanager
def ui_server(root: Path) -> Iterator[UiServer]:
    """`cairn server start` (server, UI and worker) in a private CAIRN_HOME on a free port."""
    home = root / "cairn-home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({"CAIRN_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})
    port = free_port()
    start = subprocess.run(
        [str(BIN / "cairn"), "server", "start", "--port", str(port), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert start.returncode == 0, start.stderr[-3000:]
    info = json.loads(start.stdout)
    try:
        yield UiServer(home=home, api_url=info["api_url"], ui_url=info["ui_url"], env=env)
    finally:
        subprocess.run([str(BIN / "cairn"), "server", "stop"], env=env, capture_output=True, timeout=60)


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium browser (Playwright's `Browser`)."""
    from playwright.sync_api import sync_playwright

    if not chromium_path().exists():  # the suite installs it first; the screenshot script does not
        raise RuntimeError(f"no Chromium at {chromium_path()}: `apt-get install -y chromium`")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium_path()), args=QUIET_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def page_for(browser: Any, node: Any) -> Iterator[Any]:
    """A fresh page for the test `node`; when the test failed, a screenshot of the page in SHOTS.
    Use it in a fixture: the test's report exists by the fixture's teardown."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        yield page
        report = getattr(node, "report_call", None)
        if report is not None and report.failed:
            SHOTS.mkdir(parents=True, exist_ok=True)
            path = SHOTS / f"{node.name}.png"
            page.screenshot(path=str(path), full_page=True)
            print(f"screenshot of the failed test's page: {path}")
    finally:
        context.close()


def history_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line)["event"] for line in path.read_text(encoding="utf-8").splitlines() if line]


def wait_for_event(path: Path, kind: str, timeout: float, where: Any = None) -> None:
    """Until history.jsonl holds an event of `kind` (for which `where(event)` holds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and any(
            e["type"] == kind and (where is None or where(e)) for e in history_events(path)
        ):
            return
        time.sleep(0.05)
    raise AssertionError(f"no {kind} event in {path} after {timeout:.0f}s")
