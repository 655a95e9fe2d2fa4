"""Make the screenshots of docs/orchestration.md: what a person sees in the Prefect UI.

Starts `cairn server start` (server, UI, worker) in a temporary CAIRN_HOME on a free port, runs the
offline demo question three ways (to the end; SIGKILLed in iteration 2; suspended for review),
and photographs the pages with Playwright driving Debian's Chromium (as the UI tests do).

    .venv/bin/python docs/screenshots/make.py          # writes docs/screenshots/*.png
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.conftest import BIN, CORPUS, QUESTION_FILE  # noqa: E402
from tests.e2e.browser import UiServer, chromium, ui_server  # noqa: E402

OUT = Path(__file__).resolve().parent
QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()


def run(ui: UiServer, ws: Path, task: str, review: str, kill_after: int | None = None) -> str:
    args = ["run", QUESTION, "--source", str(CORPUS), "--workspace", str(ws), "--task-id", task]
    args += ["--review", review]
    if kill_after:
        faults = [sys.executable, "-m", "tests.e2e.faults", "--kill-after-results", str(kill_after), "--"]
        subprocess.run([*faults, *args], env=ui.env, cwd=ROOT, capture_output=True, timeout=300)
    else:
        subprocess.run([str(BIN / "cairn"), *args], env=ui.env, capture_output=True, timeout=300)
    return str(ui.runs_named(f"cairn-{task}")[0]["id"])


def shoot(page: Any, url: str, name: str, wait_for: str, tab: str | None = None, scroll: bool = True) -> None:
    page.goto(url)
    seen = page.get_by_text(wait_for).first
    seen.wait_for(timeout=60_000)
    if tab:
        page.get_by_role("tab", name=tab).click()
    page.wait_for_timeout(1500)
    if scroll:
        seen.scroll_into_view_if_needed()
    page.screenshot(path=str(OUT / f"{name}.png"))
    print(f"wrote {OUT / name}.png")


def main() -> None:
    with (
        tempfile.TemporaryDirectory(prefix="cairn-shots-") as tmp,
        ui_server(Path(tmp)) as ui,
        chromium() as browser,
    ):
        ws = Path(tmp) / "ws"
        done = run(ui, ws, "alder-creek", "never")
        crashed = run(ui, ws, "alder-creek-killed", "never", kill_after=4)
        ui.wait_state(crashed, {"CRASHED"}, timeout=30)
        waiting = run(ui, ws, "alder-creek-review", "every")
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        runs = f"{ui.ui_url}/runs/flow-run"
        shoot(page, f"{runs}/{done}", "run-graph", "Iteration 1 plan", scroll=False)
        shoot(page, f"{runs}/{done}", "story", "Iteration 1 plan")
        result = ui.artifact_id("alder-creek-result")
        shoot(page, f"{ui.ui_url}/artifacts/artifact/{result}", "result", "Result of task")
        shoot(page, f"{runs}/{crashed}", "crashed-with-resume-line", "press Retry on this run")
        page.get_by_role("button", name="Retry").first.click()
        page.get_by_role("dialog").get_by_text("Retry").first.wait_for()
        page.screenshot(path=str(OUT / "retry.png"))
        shoot(page, f"{runs}/{waiting}", "suspended-for-review", "Waiting for a review")
        page.get_by_role("button", name="Resume").first.click()
        page.get_by_role("dialog").get_by_text("after iteration").first.wait_for()
        page.get_by_role("dialog").locator("textarea").fill("Read reservoir.md first and cite it.")
        page.screenshot(path=str(OUT / "review-form.png"))
        print("wrote retry.png, review-form.png")


if __name__ == "__main__":
    main()
