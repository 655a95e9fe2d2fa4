"""What an MCP tool call costs from Cairn's synchronous core: a session per call, or one per process.

Cairn's tasks are synchronous (Prefect worker threads); the `mcp` SDK is async. Two ways to bridge:

- a session per call: `asyncio.run` opens an `mcp.Client` (starting the server), calls, closes;
- one session per server per process (`cairn.tasks.tools.mcp.client.McpPool`): a background event
  loop owns it, and each call from a thread is scheduled onto that loop.

Measured with the real `mcp-server-time` (a Python process started with the venv's interpreter).
Medians in milliseconds; the pool's first call (the server's start) is reported apart.

    python bench/mcp_calls.py                  # a table
    python bench/mcp_calls.py --json           # one JSON object
    python bench/mcp_calls.py --calls 50 --per-call 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ARGS = {"timezone": "Europe/Paris"}


def server_args() -> list[str]:
    return ["-m", "mcp_server_time", "--local-timezone", "UTC"]


def per_call(n: int) -> list[float]:
    """Open a session, call once, close: n times."""
    from mcp import Client, StdioServerParameters

    async def once() -> None:
        async with Client(StdioServerParameters(command=sys.executable, args=server_args())) as client:
            await client.call_tool("get_current_time", ARGS)

    times = []
    for _ in range(n):
        started = time.perf_counter()
        asyncio.run(once())
        times.append((time.perf_counter() - started) * 1000)
    return times


def pooled(n: int, threads: int) -> tuple[float, list[float]]:
    """One session for the process: the first call starts the server, the rest reuse it."""
    from cairn.core import McpServerConfig
    from cairn.tasks.tools.mcp.client import McpPool

    pool = McpPool()
    server = McpServerConfig(name="time", command=sys.executable, args=server_args())
    started = time.perf_counter()
    pool.tools(server)
    start_ms = (time.perf_counter() - started) * 1000

    def call(_: int) -> float:
        began = time.perf_counter()
        pool.call(server, "get_current_time", ARGS, timeout_s=30)
        return (time.perf_counter() - began) * 1000

    with ThreadPoolExecutor(max_workers=threads) as workers:
        times = list(workers.map(call, range(n)))
    pool.close()
    return start_ms, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=50, help="pooled calls")
    parser.add_argument("--per-call", type=int, default=5, help="session-per-call calls")
    parser.add_argument("--threads", type=int, default=4, help="threads calling the pool at once")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    fresh = per_call(opts.per_call)
    start_ms, warm = pooled(opts.calls, 1)
    _, parallel = pooled(opts.calls, opts.threads)
    figures = {
        "session_per_call_ms": round(statistics.median(fresh), 1),
        "pool_first_call_ms": round(start_ms, 1),
        "pool_call_ms": round(statistics.median(warm), 2),
        f"pool_call_{opts.threads}_threads_ms": round(statistics.median(parallel), 2),
        "calls": opts.calls,
        "per_call_runs": opts.per_call,
    }
    if opts.json:
        print(json.dumps(figures))
        return
    for name, value in figures.items():
        print(f"{name:28} {value}")


if __name__ == "__main__":
    main()
