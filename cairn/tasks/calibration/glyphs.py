"""A 5x7 bitmap font for a chart's labels: each glyph is seven rows of five bits (the top bit is
the leftmost pixel), written as fourteen hex digits. Lower case is drawn as upper case; a
character it lacks is drawn as `?`.

>>> lit("1")[0]
'..#..'
"""

from __future__ import annotations

_FONT = {
    "0": "0E11131519110E", "1": "040C040404040E", "2": "0E11010204081F", "3": "1F02040201110E",
    "4": "02060A121F0202", "5": "1F101E0101110E", "6": "0608101E11110E", "7": "1F010204080808",
    "8": "0E11110E11110E", "9": "0E11110F01020C", "A": "0E11111F111111", "B": "1E11111E11111E",
    "C": "0E11101010110E", "D": "1C12111111121C", "E": "1F10101E10101F", "F": "1F10101E101010",
    "G": "0E11101711110F", "H": "1111111F111111", "I": "0E04040404040E", "J": "0702020202120C",
    "K": "11121418141211", "L": "1010101010101F", "M": "111B1515111111", "N": "11111915131111",
    "O": "0E11111111110E", "P": "1E11111E101010", "Q": "0E11111115120D", "R": "1E11111E141211",
    "S": "0F10100E01011E", "T": "1F040404040404", "U": "1111111111110E", "V": "11111111110A04",
    "W": "1111111515150A", "X": "11110A040A1111", "Y": "1111110A040404", "Z": "1F01020408101F",
    ".": "00000000000C0C", "-": "0000001F000000", "/": "00010204081000", ":": "000C0C000C0C00",
    "_": "0000000000001F", "(": "02040808080402", ")": "08040202020408", "=": "00001F001F0000",
    "%": "18190204081303", ">": "08040201020408", "<": "02040810080402", "+": "0004041F040400",
    ",": "000000000C0408", " ": "00000000000000", "?": "0E110102040004",
}  # fmt: skip
WIDTH, HEIGHT = 5, 7


def rows(char: str) -> list[int]:
    """The seven rows of `char`'s glyph, as bits."""
    code = _FONT.get(char.upper(), _FONT["?"])
    return [int(code[i : i + 2], 16) for i in range(0, 14, 2)]


def lit(char: str) -> list[str]:
    """The glyph as text (`#` for a lit pixel): for reading and testing the font."""
    return ["".join("#" if bits >> (WIDTH - 1 - x) & 1 else "." for x in range(WIDTH)) for bits in rows(char)]
