"""What an offline embedder costs a process: import, first use (time and resident memory), throughput.

Each embedder is measured in fresh processes (`--runs`, default 3), so the first-use figures are what
a `cairn` command pays: importing its module (after numpy), constructing it (reading its table and
tokenizer), its first `embed`. Throughput, tokenising included, over the LoCoMo dev split's turns
(when the file is there) and over `bench/store.py`'s 300-character synthetic records.

    python bench/embedder_cost.py [--embedders static-minilm,potion-base-8m,hashing] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
MODULES = {
    "static-minilm": ("cairn.memory.embed.static_embedding", "StaticEmbedder()"),
    "potion-base-8m": ("cairn.memory.embed.potion_embedding", "PotionEmbedder()"),
    "hashing": ("cairn.memory.embed.embeddings", "HashingEmbedder(384)"),
}

# Runs in a fresh interpreter; prints one JSON object.
_PROBE = """
import json, sys, time
sys.path.insert(0, {root!r})
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
import numpy
base = rss(); t0 = time.perf_counter()
from {module} import *
t1 = time.perf_counter(); embedder = {make}; t2 = time.perf_counter()
embedder.embed(["a first text to embed"]); t3 = time.perf_counter()
out = dict(import_s=t1 - t0, construct_s=t2 - t1, first_embed_s=t3 - t2, rss_mb=rss() - base)
sys.path.insert(0, {bench!r})
from store import Corpus
texts = dict(synthetic=Corpus(5000).texts)
if {locomo!r}:
    samples = json.load(open({locomo!r}))
    texts["locomo"] = [t["text"] for s in samples for k, v in s["conversation"].items()
                       if k.startswith("session_") and isinstance(v, list) for t in v]
for name, batch in texts.items():
    t = time.perf_counter(); embedder.embed(batch)
    out[name + "_per_s"] = len(batch) / (time.perf_counter() - t)
print(json.dumps(out))
"""


def probe(name: str) -> dict[str, float]:
    module, make = MODULES[name]
    locomo = str(LOCOMO) if LOCOMO.exists() else ""
    code = _PROBE.format(root=str(ROOT), bench=str(ROOT / "bench"), module=module, make=make, locomo=locomo)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(run.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--embedders", default=",".join(MODULES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    report = {}
    for name in args.embedders.split(","):
        runs = [probe(name) for _ in range(args.runs)]
        report[name] = {key: sorted(round(r[key], 3) for r in runs) for key in runs[0]}
    if args.json:
        print(json.dumps(report))
        return
    for name, figures in report.items():
        print(name)
        for key, values in figures.items():
            print(f"  {key:>18}: {' / '.join(f'{v:g}' for v in values)}")


if __name__ == "__main__":
    main()
