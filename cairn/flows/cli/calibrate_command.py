"""`cairn calibrate`: how far a model's judgement can be trusted, measured over labelled items and
stored per model (`cairn.tasks.calibration`)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from cairn.core import RunConfig
from cairn.flows.console import emit, safe, say
from cairn.flows.loop.preflight import preflight
from cairn.tasks.calibration import SHIPPED, Measured, judged, measure, read_items, save_calibration, set_name
from cairn.tasks.calibration.pr_chart import write_chart
from cairn.tasks.calibration.thresholds import Point
from cairn.tasks.calls import model_client

PROGRESS_EVERY = 20


def calibrate_command(
    config: RunConfig, questions: Path | None, png: Path | None, home: Path, as_json: bool
) -> None:
    """Judge every item of `questions` (default: the shipped set), choose and store the thresholds,
    draw the curve (`png`, default beside the stored JSON) and print them."""
    labelled = questions or SHIPPED
    items = read_items(labelled)  # a bad file: one line, exit 2, before any model is asked
    config = preflight(config)
    client = model_client(config)
    say(f"calibrate: {safe(client.describe())}, {len(items)} items")
    p_yes = judged(client, items, _progress)
    measured = measure(config.model, items, p_yes, set_name(labelled))
    stored = save_calibration(measured.calibration, home)
    chart = write_chart(measured, png or stored.with_suffix(".png"))
    if as_json:
        emit(
            {
                **measured.calibration.model_dump(),
                "stored": str(stored),
                "png": str(chart),
                "rows": _rows(measured),
            }
        )
        return
    Console().print(_table(measured))
    for line in _summary(measured):
        say(line)
    say(f"stored {safe(stored)}; curve {safe(chart)}")


def _progress(n: int, total: int) -> None:
    if n % PROGRESS_EVERY == 0 or n == total:
        say(f"judged {n}/{total}")


def _rows(measured: Measured) -> list[dict[str, object]]:
    return [{**p.model_dump(), "chosen": _mark(measured, p)} for p in measured.rows]


def _table(measured: Measured) -> Table:
    found = measured.calibration
    table = Table(title=f"{safe(found.model)}: {found.n} items ({found.positives} true), every item")
    for name in ("P(yes) >=", "proven", "precision", "lower 95%", "recall", "chosen"):
        table.add_column(name, justify="left" if name == "chosen" else "right")
    for p in measured.rows:
        cells = (p.threshold, p.proven, p.precision, p.lower, p.recall)
        table.add_row(*(_cell(c) for c in cells), _mark(measured, p))
    return table


def _mark(measured: Measured, p: Point) -> str:
    found = measured.calibration
    marks = ["proven"] if p.threshold == found.proven else []
    return ", ".join(marks + (["absent below"] if p.threshold == found.absent else []))


def _summary(measured: Measured) -> list[str]:
    found = measured.calibration
    if found.proven is None:
        proven = f"proven: no threshold reaches a lower bound of {found.target} on precision; none stored"
    else:
        at = f"precision {_cell(found.precision)}, recall {found.recall:.3f}"
        proven = f"proven: P(yes) >= {found.proven:.4f} ({at}, every item)"
    held = (
        f"held out ({len(found.fold_thresholds)} folds by group): {found.held_out_proven} proven, "
        f"precision {_cell(found.held_out_precision)} (lower bound {_cell(found.held_out_lower)}), "
        f"recall {found.held_out_recall:.3f}"
    )
    absent = (
        "absent: none"
        if found.absent is None
        else (
            f"absent: P(yes) < {found.absent:.4f} ({_cell(found.absent_positives)} of the positives, "
            f"{_cell(found.absent_negatives)} of the negatives under it)"
        )
    )
    failed = [f"{found.failed} judge calls failed (left out)"] if found.failed else []
    return [proven, held, absent, *failed]


def _cell(value: float | int | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.3f}"
