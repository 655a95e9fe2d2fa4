"""A served model's yes/no on the reader's best candidates, for fitting the served verifier.

    python bench/verifier_judge.py --model openai/qwen2.5-coder-1.5b-instruct --per-dataset 100 \\
        --out bench/verifier/judged.jsonl
    python bench/verifier_fit.py --served bench/verifier/judged.jsonl

For a seeded sample of each dataset's questions (`bench/verifier/examples.py`), the reader's best
few candidates (with the weights Cairn ships) are put to the model exactly as `cairn run` puts
them (a `judge` call: the quoted line, the question, the value; its P(yes) read from the first
token's odds). One JSON line per candidate: example, value, source, line, p_yes. A file already
holding some lines is continued: only candidates it does not hold are asked.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from verifier.examples import DATASETS, load  # noqa: E402

from cairn.tasks.messages.schemas import JudgeInput, JudgeOutput  # noqa: E402
from cairn.tasks.model.llm import ModelClient  # noqa: E402
from cairn.tasks.verify import load_verifier, read_question  # noqa: E402
from cairn.tasks.verify.decision import scored  # noqa: E402

PER_EXAMPLE = 2  # candidates judged per question: what a run judges (the answer's and the best)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    examples = load(tuple(args.datasets.split(",")), Path(tempfile.mkdtemp(prefix="cairn-judge-")))
    rng = random.Random(args.seed)
    chosen = []
    for dataset in dict.fromkeys(e.dataset for e in examples):
        found = [e for e in examples if e.dataset == dataset]
        chosen += rng.sample(found, min(args.per_dataset, len(found)))
    done = _done(args.out)
    client = ModelClient(args.model, timeout=args.timeout)
    weights = load_verifier()
    started = time.monotonic()
    with args.out.open("a", encoding="utf-8") as out:
        for n, example in enumerate(chosen, start=1):
            read = example.sources()
            found, _ = scored(read_question(example.question), read, weights)
            for s in found[:PER_EXAMPLE]:
                unit = read.sentences[s.candidate.sentence].unit
                if (example.name, s.candidate.text, unit.source, unit.line) in done:
                    continue  # judged by an earlier pass
                asked = JudgeInput(question=example.question, answer=s.candidate.text, line=unit.shown)
                result = client.call("judge", asked)
                if result.ok and isinstance(result.output, JudgeOutput):
                    row = {"example": example.name, "value": s.candidate.text, "source": unit.source,
                           "line": unit.line, "p_yes": result.output.p_yes}  # fmt: skip
                    out.write(json.dumps(row) + "\n")
                    out.flush()
            if n % 10 == 0:
                print(
                    f"{n}/{len(chosen)} questions, {time.monotonic() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--per-dataset", type=int, default=100, help="questions sampled per dataset")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "verifier" / "judged.jsonl")
    return parser.parse_args(argv)


def _done(path: Path) -> set[tuple[str, str, str, int]]:
    """The candidates already judged in `path` (a run adds only the others)."""
    if not path.is_file():
        return set()
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {(r["example"], r["value"], r["source"], int(r["line"])) for r in rows}


if __name__ == "__main__":
    main()
