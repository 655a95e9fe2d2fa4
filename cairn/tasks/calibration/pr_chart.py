"""The precision-recall curve of a calibration as a PNG, drawn with `zlib` and `struct` alone: a
640x480 line chart, recall across, precision up, the target's line dashed, the chosen threshold
and the held-out figures marked.
"""

from __future__ import annotations

import itertools
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

from cairn.tasks.calibration.glyphs import WIDTH, rows
from cairn.tasks.calibration.measure import Measured

Colour = tuple[int, int, int]
SIZE = (640, 480)
LEFT, RIGHT, TOP, BOTTOM = 70, 610, 60, 350  # the plot's box, in pixels; the legend under it
LEGEND = (408, 430, 452)  # its lines' tops
INK, GREY, BLUE, RED, GREEN = (20, 20, 20), (170, 170, 170), (30, 90, 200), (210, 40, 40), (20, 150, 60)
PALE = (150, 185, 235)  # precision's lower bound
TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


class Canvas:
    """An RGB image to draw on, white to start with."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(b"\xff" * (width * height * 3))

    def dot(self, x: int, y: int, colour: Colour, size: int = 1) -> None:
        for dx in range(size):
            for dy in range(size):
                if 0 <= x + dx < self.width and 0 <= y + dy < self.height:
                    at = ((y + dy) * self.width + x + dx) * 3
                    self.pixels[at : at + 3] = bytes(colour)

    def line(
        self, a: tuple[int, int], b: tuple[int, int], colour: Colour, size: int = 2, dash: int = 0
    ) -> None:
        steps = max(abs(b[0] - a[0]), abs(b[1] - a[1]), 1)
        for i in range(steps + 1):
            if dash and (i // dash) % 2:
                continue
            x, y = a[0] + (b[0] - a[0]) * i / steps, a[1] + (b[1] - a[1]) * i / steps
            self.dot(round(x), round(y), colour, size)

    def text(self, x: int, y: int, words: str, colour: Colour = INK, scale: int = 2) -> None:
        for n, char in enumerate(words):
            for row, bits in enumerate(rows(char)):
                for col in range(WIDTH):
                    if bits >> (WIDTH - 1 - col) & 1:
                        self.dot(x + (n * (WIDTH + 1) + col) * scale, y + row * scale, colour, scale)

    def png(self) -> bytes:
        raw = b"".join(
            b"\x00" + bytes(self.pixels[y * self.width * 3 : (y + 1) * self.width * 3])
            for y in range(self.height)
        )
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(raw, 9))
            + _chunk(b"IEND", b"")
        )


def write_chart(measured: Measured, path: Path) -> Path:
    """The chart of `measured` at `path` (its folder made)."""
    canvas = Canvas(*SIZE)
    found = measured.calibration
    canvas.text(10, 10, f"PRECISION-RECALL: {found.model}"[:52])
    _axes(canvas)
    canvas.line(_at(0.0, found.target), _at(1.0, found.target), GREY, 1, dash=6)
    canvas.text(RIGHT - 136, _at(0, found.target)[1] + 6, f"TARGET {found.target:.2f}", GREY)
    _curve(canvas, [(p.recall, p.lower) for p in measured.curve if p.lower is not None], PALE, dots=False)
    _curve(canvas, [(p.recall, p.precision) for p in measured.curve if p.precision is not None], BLUE)
    _legend(canvas, measured)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(canvas.png())
    return path


def _axes(canvas: Canvas) -> None:
    canvas.line((LEFT, BOTTOM), (RIGHT, BOTTOM), INK)
    canvas.line((LEFT, TOP), (LEFT, BOTTOM), INK)
    for tick in TICKS:
        x, y = _at(tick, tick)
        canvas.line((x, BOTTOM), (x, BOTTOM + 6), INK)
        canvas.text(x - 16, BOTTOM + 12, f"{tick:.1f}")
        canvas.line((LEFT - 6, y), (LEFT, y), INK)
        canvas.text(LEFT - 44, y - 6, f"{tick:.1f}")
    canvas.text((LEFT + RIGHT) // 2 - 36, BOTTOM + 32, "RECALL")
    canvas.text(LEFT - 60, TOP - 22, "PRECISION")


def _curve(canvas: Canvas, points: Sequence[tuple[float, float]], colour: Colour, dots: bool = True) -> None:
    ordered = sorted(points)
    for a, b in itertools.pairwise(ordered):
        canvas.line(_at(*a), _at(*b), colour)
    for recall, precision in ordered if dots else ():
        x, y = _at(recall, precision)
        canvas.dot(x - 2, y - 2, colour, 5)


def _legend(canvas: Canvas, measured: Measured) -> None:
    found = measured.calibration
    chosen = next((p for p in measured.curve if p.threshold == found.proven), None)
    if chosen is not None and chosen.precision is not None:
        x, y = _at(chosen.recall, chosen.precision)
        canvas.dot(x - 5, y - 5, RED, 11)
        canvas.text(LEFT, LEGEND[1], f"PROVEN AT P(YES) >= {found.proven:.4f}", RED)
    else:
        canvas.text(LEFT, LEGEND[1], "PROVEN: NO THRESHOLD REACHES THE TARGET", RED)
    if found.held_out_precision is not None and found.held_out_lower is not None:
        x, y = _at(found.held_out_recall, found.held_out_precision)
        canvas.line((x - 7, y - 7), (x + 7, y + 7), GREEN, 3)
        canvas.line((x - 7, y + 7), (x + 7, y - 7), GREEN, 3)
        precision, lower = found.held_out_precision, found.held_out_lower
        held = f"HELD OUT: P {precision:.2f} (>= {lower:.2f}) R {found.held_out_recall:.2f}"
        canvas.text(LEFT, LEGEND[2], held, GREEN)
    else:
        canvas.text(LEFT, LEGEND[2], "HELD OUT: NOTHING PROVEN", GREEN)
    canvas.text(LEFT, LEGEND[0], "PRECISION", BLUE)
    canvas.text(LEFT + 130, LEGEND[0], "ITS LOWER BOUND (95%)", PALE)


def _at(recall: float, precision: float) -> tuple[int, int]:
    return round(LEFT + recall * (RIGHT - LEFT)), round(BOTTOM - precision * (BOTTOM - TOP))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )
