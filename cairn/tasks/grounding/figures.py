"""Figures and dates in text, as comparable values: what an answer states and what a file states.

A figure is a number with the unit written after it (`180 ms`, `1,260,000 m³`, `3%`, `1.26 million
litres`), or a time of day (`21:00`, `9:30 pm`, the `T21:00:00` of an ISO timestamp: unit `clock`,
in minutes after midnight); a date is a month with a day, a year or both (`March 21`, `8 May,
2023`, `2024-03-21`).
Both are read into canonical values, so `1,260,000` and `1260000`, `180 ms` and `180
milliseconds`, `March 21` and `21 March` compare equal however each text writes them.

>>> [(f.value, f.unit) for f in figures("It holds 1,260,000 m³ and uses 8.4 thousand m3 a day.")]
[(1260000.0, 'm3'), (8400.0, 'm3')]
>>> [d.key for d in dates("Launch moved from March 30 to 14 April 2026.")]
[(None, 3, 30), (2026, 4, 14)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cairn.tasks.grounding.lexicon import MONTH_SPELLINGS, SCALE_WORDS

# Canonical unit for each way of writing it; a unit not listed here is no unit (`42 apples`).
_UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "%": ("%", "percent", "per cent", "pct"),
    "ms": ("ms", "msec", "millisecond", "milliseconds"),
    "s": ("s", "sec", "secs", "second", "seconds"),
    "min": ("min", "mins", "minute", "minutes"),
    "h": ("h", "hr", "hrs", "hour", "hours"),
    "day": ("day", "days"),
    "week": ("week", "weeks"),
    "month": ("month", "months"),
    "year": ("year", "years"),
    "m3": ("m³", "m3", "cubic metre", "cubic metres", "cubic meter", "cubic meters"),
    "l": ("l", "litre", "litres", "liter", "liters"),
    "m": ("m", "metre", "metres", "meter", "meters"),
    "km": ("km", "kilometre", "kilometres", "kilometer", "kilometers"),
    "ha": ("ha", "hectare", "hectares"),
    "kg": ("kg", "kilogram", "kilograms"),
    "g": ("g", "gram", "grams"),
    "eur": ("€", "eur", "euro", "euros"),
    "usd": ("$", "usd", "dollar", "dollars"),
    "gb": ("gb", "gib", "gigabyte", "gigabytes"),
    "mb": ("mb", "mib", "megabyte", "megabytes"),
    "rps": ("rps", "requests per second", "req/s"),
}
UNITS = {word: unit for unit, words in _UNIT_WORDS.items() for word in words}
_SCALES = SCALE_WORDS | {"bn": 1e9, "k": 1e3}  # and their short forms (`8.4k`, `2 bn`)
_UNIT_ALT = "|".join(re.escape(w) for w in sorted(UNITS, key=len, reverse=True))
# A number not glued to a word or another number (`p95`, `v1.2`, `D3:12` are names, not figures).
_NUMBER = r"(?<![\w.,:/-])(?P<number>\d{1,3}(?:(?:,|\u202f|\u2009)\d{3})+(?!\d)|\d+)(?P<decimals>\.\d+)?"
_FIGURE = re.compile(
    r"(?P<currency>[$€])?" + _NUMBER + rf"(?:\s?(?P<scale>{'|'.join(_SCALES)})\b)?"
    rf"(?:\s?(?P<unit>{_UNIT_ALT})(?![\w³]))?",
    re.IGNORECASE,
)
# A time of day; `D3:12` (a dialogue id) is glued to a word and is no time, `T21:00` of a timestamp is;
# a timestamp's offset (`+09:00`) is part of its time.
_CLOCK = re.compile(
    r"(?:(?<![\w.:/+])|(?<=\dT))(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?::[0-5]\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?)?(?![\d:])"
    r"(?:\s?(?P<half>[ap])\.?m\b\.?)?",
    re.IGNORECASE,
)
_MONTH_NUMBERS = {
    spelling: n for n, spellings in enumerate(MONTH_SPELLINGS, start=1) for spelling in spellings
}
_MONTH = "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True))
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_DATE = re.compile(
    "|".join(
        (
            r"(?P<iso>\b(?P<iy>\d{4})-(?P<im>[01]\d)-(?P<id>[0-3]\d)(?:\b|(?=T\d)))",
            rf"\b{_DAY.format('d1')}\s+(?:of\s+)?(?P<m1>{_MONTH})\b\.?,?(?:\s+(?P<y1>\d{{4}})\b)?",
            rf"\b(?P<m2>{_MONTH})\b\.?\s+{_DAY.format('d2')}\b(?:,?\s+(?P<y2>\d{{4}})\b)?",
            rf"\b(?P<m3>{_MONTH})\b,?\s+(?P<y3>\d{{4}})\b",
        )
    ),
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Figure:
    text: str  # as written
    value: float
    unit: str | None  # canonical (`UNITS`), or None
    start: int
    end: int


@dataclass(frozen=True)
class Date:
    text: str
    year: int | None
    month: int
    day: int | None
    start: int
    end: int

    @property
    def key(self) -> tuple[int | None, int, int | None]:
        return (self.year, self.month, self.day)

    def matches(self, other: Date) -> bool:
        """This date (a claim's) is stated by `other`: month equal, and day and year equal wherever
        both texts give them; a day this date names must be stated (`January 2023` does not
        state January 20: Cairn dated "this month" so, and a day-late answer passed)."""
        if self.day is not None and other.day is None:
            return False
        pairs = ((self.year, other.year), (self.day, other.day))
        return self.month == other.month and all(a is None or b is None or a == b for a, b in pairs)


def dates(text: str) -> list[Date]:
    """Every date in `text`, in order (a bare year is a figure, not a date)."""
    found = []
    for match in _DATE.finditer(text):
        if date := _date(match):
            found.append(date)
    return found


def _date(match: re.Match[str]) -> Date | None:
    g = match.groupdict()
    year: int | None
    day: int | None
    if g["iso"]:
        year, month, day = int(g["iy"]), int(g["im"]), int(g["id"])
    else:
        month = _MONTH_NUMBERS[(g["m1"] or g["m2"] or g["m3"]).lower()]
        day_text, year_text = g["d1"] or g["d2"], g["y1"] or g["y2"] or g["y3"]
        day, year = (int(day_text) if day_text else None), (int(year_text) if year_text else None)
    if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return None
    if g["m3"] and g["m3"].lower() == "may" and year is None:
        return None  # "may" alone is the verb
    return Date(match.group(0).strip(" ,."), year, month, day, match.start(), match.end())


def figures(text: str, *, skip: list[tuple[int, int]] | None = None) -> list[Figure]:
    """Every figure in `text`, in order; spans in `skip` (dates, say) are left out.

    >>> [(f.text, f.value, f.unit) for f in figures("At 2026-11-25T21:00:00+09:00, or 9:30 pm, 2 h.")]
    [('21:00:00+09:00', 1260.0, 'clock'), ('9:30 pm', 1290.0, 'clock'), ('2 h', 2.0, 'h')]
    """
    spans = skip if skip is not None else [(d.start, d.end) for d in dates(text)]
    clocks = [c for c in map(_clock, _CLOCK.finditer(text)) if not _inside(c.start, spans)]
    spans = [*spans, *((c.start, c.end) for c in clocks)]
    numbers = [_figure(m) for m in _FIGURE.finditer(text) if not _inside(m.start("number"), spans)]
    return sorted([*clocks, *numbers], key=lambda f: f.start)


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def _clock(match: re.Match[str]) -> Figure:
    hour, half = int(match["h"]), (match["half"] or "").lower()
    if half and hour <= 12:
        hour = hour % 12 + (12 if half == "p" else 0)
    minutes = float(hour * 60 + int(match["m"]))
    return Figure(match.group(0).strip(), minutes, "clock", match.start(), match.end())


def _figure(match: re.Match[str]) -> Figure:
    digits = re.sub(r"[,\u202f\u2009]", "", match["number"])
    value = float(digits + (match["decimals"] or ""))
    scale = (match["scale"] or "").lower()
    value *= _SCALES.get(scale, 1.0)
    unit_text = (match["unit"] or match["currency"] or "").lower()
    return Figure(match.group(0).strip(), value, UNITS.get(unit_text), match.start(), match.end())


def same_value(a: float, b: float) -> bool:
    """Equal as figures (float noise aside)."""
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def rounds_to(value: float, stated: Figure) -> bool:
    """Whether `value` written with the stated figure's decimals is the stated figure: 148.2 for
    1260000 / 8500 = 148.235..., and 150 for 1260000 / 8400."""
    decimals = len(stated.text.split(".")[1]) if re.search(r"\d\.\d", stated.text) else 0
    return same_value(round(value, decimals), stated.value) or same_value(value, stated.value)
