"""Build `cairn/tasks/verify/data/wordnet.json.gz`: WordNet's antonyms, derived forms and synonyms.

The answer verifier asks whether two words are the same word in another form (own / owner), near
synonyms (large / big) or opposites (increase / decrease). Cairn does not depend on NLTK or WordNet
at run time: this script reads Princeton WordNet 3.0 once, with NLTK's reader, and writes a compact
table that ships inside the package (read by `cairn.tasks.verify.wordnet`).

WordNet 3.0 comes from Debian (`apt-get install -y wordnet-base wordnet-sense-index`, as root),
in `/usr/share/wordnet`. Debian's package lacks the `lexnames` file that NLTK's reader opens: this
script writes it (WordNet's list of the 45 lexicographer files, `man 5 lexnames`) into a temporary
copy of the Debian files, so nothing is written under `/usr/share`. NLTK is a test dependency of
Cairn (`.venv/bin/python` has it). `read_seconds` is the reader's one load: gunzip and parse.

Keys are lower-case single-word lemmas (no `_`, no `-`, no digits); every relation names only such
words:

- `antonyms`: WordNet's lemma-level antonym pointers (`!`), over all senses, both directions.
- `derived`: derivationally related forms (`+`) and pertainyms (`\\`), lemma level, over all
  senses, both directions; plus the morphological base (`morphy`) where it differs from the word.
- `synonyms`: cautious: the other lemmas of the word's first two synsets per part of speech (the
  most frequent senses, in WordNet's sense order), only synsets with at most 8 lemmas; one
  direction (the reader's `related` looks both ways).

Layout: `{"version": 1, "source": ..., "<relation>": {word: "other other ..."}}`, the related
words sorted and joined by spaces (JSON strings parse about twice as fast as lists of word
indexes, and gzip smaller), JSON without spaces, gzip level 9 with no time stamp (the same input
gives the same bytes). A word with no related word is no key of that relation. `pairs` counts
word -> other entries: antonyms and derived hold each pair both ways, synonyms one way.

    .venv/bin/python bench/wordnet_tables.py            # writes the package's table, prints sizes
    .venv/bin/python bench/wordnet_tables.py --json     # the figures as one JSON object
    .venv/bin/python bench/wordnet_tables.py --out /tmp/wordnet.json.gz --wordnet /path/to/dict
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "cairn" / "tasks" / "verify" / "data" / "wordnet.json.gz"
DEFAULT_WORDNET = Path("/usr/share/wordnet")
RELATIONS = ("antonyms", "derived", "synonyms")
FIRST_SENSES = 2  # synonyms: the first two synsets per part of speech
MAX_SYNSET_LEMMAS = 8  # synonyms: larger synsets are too loose to trust
POS = ("n", "v", "a", "r")

# WordNet 3.0's lexicographer files: number, name, syntactic category (1 noun, 2 verb, 3 adjective,
# 4 adverb), as `man 5 lexnames` lists them; 44 (adj.ppl) comes after the verbs.
LEXNAMES = (
    "adj.all 3",
    "adj.pert 3",
    "adv.all 4",
    "noun.Tops 1",
    "noun.act 1",
    "noun.animal 1",
    "noun.artifact 1",
    "noun.attribute 1",
    "noun.body 1",
    "noun.cognition 1",
    "noun.communication 1",
    "noun.event 1",
    "noun.feeling 1",
    "noun.food 1",
    "noun.group 1",
    "noun.location 1",
    "noun.motive 1",
    "noun.object 1",
    "noun.person 1",
    "noun.phenomenon 1",
    "noun.plant 1",
    "noun.possession 1",
    "noun.process 1",
    "noun.quantity 1",
    "noun.relation 1",
    "noun.shape 1",
    "noun.state 1",
    "noun.substance 1",
    "noun.time 1",
    "verb.body 2",
    "verb.change 2",
    "verb.cognition 2",
    "verb.communication 2",
    "verb.competition 2",
    "verb.consumption 2",
    "verb.contact 2",
    "verb.creation 2",
    "verb.emotion 2",
    "verb.motion 2",
    "verb.perception 2",
    "verb.possession 2",
    "verb.social 2",
    "verb.stative 2",
    "verb.weather 2",
    "adj.ppl 3",
)

_DIGIT = re.compile(r"\d")


def single_word(name: str) -> str | None:
    """The lower-case word of a lemma name, or None for a multi-word lemma or one with digits."""
    word = name.lower()
    if "_" in word or "-" in word or _DIGIT.search(word):
        return None
    return word


def open_wordnet(source: Path, folder: Path) -> Any:
    """NLTK's WordNet reader over a copy of `source`, with a written `lexnames` file.

    The copy is `folder/corpora/wordnet`, and `folder` becomes NLTK's only data path: NLTK 3.10
    opens files only under its data paths (following links to their targets), and its reader maps
    the loaded WordNet against the `corpora/wordnet` it finds there.
    """
    import nltk.data

    corpus = folder / "corpora" / "wordnet"
    corpus.mkdir(parents=True)
    for path in sorted(source.iterdir()):
        if path.is_file():
            shutil.copyfile(path, corpus / path.name)
    lines = [f"{number:02d}\t{entry.replace(' ', chr(9))}\n" for number, entry in enumerate(LEXNAMES)]
    (corpus / "lexnames").write_text("".join(lines), encoding="utf-8")
    nltk.data.path[:] = [str(folder)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "The multilingual functions are not available"
        from nltk.corpus import wordnet

        wordnet.ensure_loaded()
    return wordnet


def debian_package(source: Path) -> str:
    """`wordnet-base <version>` where Debian's package installed `source`, else the folder."""
    try:
        found = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "wordnet-base"], capture_output=True, text=True
        )
    except OSError:
        return str(source)
    if found.returncode or source.resolve() != DEFAULT_WORDNET:
        return str(source)
    return f"Debian wordnet-base {found.stdout.strip()}"


def check_lexnames(source: Path) -> None:
    """Every `lex_filenum` of the data files names a lexicographer file of its part of speech."""
    category = {"noun": "1", "verb": "2", "adj": "3", "adv": "4"}
    for pos, number in category.items():
        with open(source / f"data.{pos}", encoding="utf-8") as lines:
            used = {int(line.split(" ", 2)[1]) for line in lines if not line.startswith("  ")}
        wrong = sorted(n for n in used if n >= len(LEXNAMES) or LEXNAMES[n].split()[1] != number)
        if wrong:
            raise SystemExit(f"lexnames: data.{pos} uses files {wrong} of another category")


def relations(wn: Any) -> tuple[dict[str, dict[str, set[str]]], int]:
    """The three relations, word to related words, from WordNet's reader; and how many derived
    pairs only the morphological base gave."""
    table: dict[str, dict[str, set[str]]] = {name: defaultdict(set) for name in RELATIONS}
    antonyms, derived, synonyms = (table[name] for name in RELATIONS)

    def link(relation: dict[str, set[str]], a: str | None, b: str | None) -> bool:
        if not a or not b or a == b or b in relation[a]:
            return False
        relation[a].add(b)
        relation[b].add(a)
        return True

    words: set[str] = set()
    for synset in wn.all_synsets():
        for lemma in synset.lemmas():
            word = single_word(lemma.name())
            if word is None:
                continue
            words.add(word)
            for other in lemma.antonyms():
                link(antonyms, word, single_word(other.name()))
            for other in lemma.derivationally_related_forms() + lemma.pertainyms():
                link(derived, word, single_word(other.name()))

    from_morphy = 0
    for word in sorted(words):
        base = wn.morphy(word)
        if base is not None:
            from_morphy += link(derived, word, single_word(base))
        for pos in POS:
            own = [s for s in wn.synsets(word, pos) if any(lm.name().lower() == word for lm in s.lemmas())]
            for synset in own[:FIRST_SENSES]:
                if len(synset.lemmas()) > MAX_SYNSET_LEMMAS:
                    continue
                for lemma in synset.lemmas():
                    other = single_word(lemma.name())
                    if other is not None and other != word:
                        synonyms[word].add(other)
    return table, from_morphy


def encode(table: dict[str, dict[str, set[str]]], source: str) -> tuple[bytes, dict[str, Any]]:
    """The gzipped JSON table and its figures (before the byte counts)."""
    data: dict[str, Any] = {"version": 1, "source": source}
    for name in RELATIONS:
        relation = table[name]
        data[name] = {w: " ".join(sorted(relation[w])) for w in sorted(relation) if relation[w]}
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0, filename="") as out:
        out.write(text)
    words = {word for name in RELATIONS for word, others in table[name].items() if others}
    words |= {other for name in RELATIONS for others in table[name].values() for other in others}
    figures: dict[str, Any] = {
        "entries": len(words),
        "words_with": {name: len(data[name]) for name in RELATIONS},
        "pairs": {name: sum(len(others) for others in table[name].values()) for name in RELATIONS},
        "json_bytes": len(text),
    }
    return buffer.getvalue(), figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the table to write")
    parser.add_argument("--wordnet", type=Path, default=DEFAULT_WORDNET, help="WordNet 3.0's dict folder")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)

    if not (args.wordnet / "data.noun").exists():
        raise SystemExit(f"no WordNet in {args.wordnet}: apt-get install -y wordnet-base wordnet-sense-index")
    check_lexnames(args.wordnet)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="wordnet-") as folder:
        wn = open_wordnet(args.wordnet, Path(folder))
        loaded = time.perf_counter()
        table, from_morphy = relations(wn)
        version = wn.get_version()
    payload, figures = encode(table, f"Princeton WordNet {version} ({debian_package(args.wordnet)})")
    figures["derived_from_morphy"] = from_morphy
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(payload)
    reading = time.perf_counter()
    json.loads(gzip.decompress(args.out.read_bytes()))  # what the reader does once per process
    read_seconds = time.perf_counter() - reading
    figures.update(
        out=str(args.out),
        bytes=len(payload),
        wordnet_load_seconds=round(loaded - started, 2),
        seconds=round(reading - started, 2),
        read_seconds=round(read_seconds, 3),
    )
    if args.json:
        print(json.dumps(figures))
    else:
        size = f"{len(payload):,} bytes gzipped ({figures['json_bytes']:,} of JSON)"
        print(f"{figures['entries']:,} words, {size}")
        for name in RELATIONS:
            print(f"  {name}: {figures['pairs'][name]:,} pairs, {figures['words_with'][name]:,} words")
        took = f"{figures['seconds']} s (WordNet loaded in {figures['wordnet_load_seconds']} s)"
        print(f"  {took} -> {args.out}; read back in {figures['read_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
