"""The process's MCP sessions, for a synchronous core: one event loop thread owns them all.

Cairn's core is synchronous (Prefect tasks run in worker threads); the `mcp` SDK is async, and a
session must be entered and left by the same asyncio task. So each process has one `McpPool`: a
daemon thread runs an event loop, each server gets one long-lived task there that opens its
`mcp.Client`, lists its tools and waits to be closed, and a call from any thread is a coroutine
scheduled onto that loop (`asyncio.run_coroutine_threadsafe`) whose result the thread waits for.
A session lives as long as the process: starting a server costs about a second (a fresh Python
interpreter for the servers here), a call on an open session milliseconds (`bench/mcp_calls.py`).

A server that cannot start, or that dies, raises `McpUnavailable` with one line (its last line on
stderr when it wrote one); the pool forgets a dead session, so the next call starts it again.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import re
import tempfile
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any, TextIO

from cairn.core import CairnError, McpServerConfig

if TYPE_CHECKING:  # the SDK takes most of a second to import: loaded when a server starts
    from mcp import Client
    from mcp_types import CallToolResult
    from mcp_types import Tool as McpTool

START_TIMEOUT_S = 30.0
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class McpUnavailable(CairnError):
    """An MCP server that could not start, or stopped."""


class McpTimeout(CairnError):
    """An MCP call that did not answer in time."""


class _Session:
    """One server's session, owned by one task on the pool's loop."""

    def __init__(self, server: McpServerConfig) -> None:
        self.server = server
        self.client: Client | None = None
        self.tools: list[McpTool] = []
        self.stop: asyncio.Event | None = None
        self.ended: Future[None] = Future()
        # The server's stderr: its last line explains a failed start. Closed with the process.
        self.stderr: TextIO = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115

    async def run(self, ready: Future[list[McpTool]]) -> None:
        from mcp import Client

        self.stop = asyncio.Event()
        try:
            async with Client(_transport(self.server, self.stderr)) as client:
                self.tools = await _list_tools(client)
                self.client = client
                ready.set_result(self.tools)
                await self.stop.wait()
        except BaseException as exc:  # the thread that waits on `ready` reports it
            if not ready.done():
                ready.set_exception(exc)
        finally:
            self.client = None
            self.ended.set_result(None)

    def last_words(self) -> str:
        """The server's last line on stderr, if it wrote one."""
        self.stderr.seek(0)
        lines = [line.strip() for line in self.stderr.read()[-4000:].splitlines() if line.strip()]
        return lines[-1][:300] if lines else ""


class McpPool:
    """Every MCP session of this process (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sessions: dict[str, _Session] = {}

    def tools(self, server: McpServerConfig) -> list[McpTool]:
        """The server's tools, listed when its session opened."""
        return self._session(server).tools

    def call(
        self, server: McpServerConfig, tool: str, args: dict[str, Any], timeout_s: float
    ) -> CallToolResult:
        from mcp.shared.exceptions import MCPError
        from mcp_types.jsonrpc import CONNECTION_CLOSED

        session = self._session(server)
        client = session.client
        if client is None:
            raise McpUnavailable(self._gone(session, None))
        pending = asyncio.run_coroutine_threadsafe(
            client.call_tool(tool, args, read_timeout_seconds=timeout_s), self._running_loop()
        )
        try:
            return pending.result(timeout_s + 2.0)
        except (FutureTimeout, TimeoutError):
            pending.cancel()
            raise McpTimeout(f"MCP {server.name}.{tool} did not answer within {timeout_s:g} s") from None
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                raise  # the server refused the call (unknown tool, bad arguments): the call failed
            self._forget(session)
            raise McpUnavailable(self._gone(session, exc)) from None
        except Exception as exc:
            if not session.ended.done():
                raise
            self._forget(session)
            raise McpUnavailable(self._gone(session, exc)) from None

    def close(self) -> None:
        """End every session (each server gets its stdin closed, then is stopped) and the loop."""
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
            loop, self._loop = self._loop, None
        if loop is None:
            return
        for session in sessions:
            if session.stop is not None:
                loop.call_soon_threadsafe(session.stop.set)
        for session in sessions:
            with contextlib.suppress(FutureTimeout, TimeoutError):
                session.ended.result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)

    def _forget(self, session: _Session) -> None:
        """Drop a dead session (the next call starts the server again) and end its task."""
        with self._lock:
            self._sessions = {k: s for k, s in self._sessions.items() if s is not session}
        if session.stop is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(session.stop.set)

    def _session(self, server: McpServerConfig) -> _Session:
        key = server.model_dump_json()
        with self._lock:
            session = self._sessions.get(key)
            if session is not None and not session.ended.done():
                return session
            session = _Session(server)
            ready: Future[list[McpTool]] = Future()
            asyncio.run_coroutine_threadsafe(session.run(ready), self._running_loop())
            try:
                ready.result(timeout=START_TIMEOUT_S)
            except (FutureTimeout, TimeoutError):
                raise McpUnavailable(
                    f"MCP server {server.name!r} did not start within {START_TIMEOUT_S:g} s"
                ) from None
            except Exception as exc:
                raise McpUnavailable(self._failed_start(session, exc)) from None
            self._sessions[key] = session
            return session

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="cairn-mcp", daemon=True).start()
            self._loop = loop
        return self._loop

    def _failed_start(self, session: _Session, exc: BaseException) -> str:
        from mcp.shared.exceptions import MCPError
        from mcp_types.jsonrpc import CONNECTION_CLOSED

        if isinstance(exc, CairnError):
            return str(exc)
        closed = isinstance(_leaf(exc), MCPError) and _leaf(exc).code == CONNECTION_CLOSED  # type: ignore[attr-defined]
        why = "it exited before answering" if closed else _why(exc)
        said = session.last_words()
        return f"MCP server {session.server.name!r} did not start: {why}" + (f" ({said})" if said else "")

    def _gone(self, session: _Session, exc: BaseException | None) -> str:
        return f"MCP server {session.server.name!r} stopped ({_why(exc) if exc else 'its session ended'})"


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside an exception group."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _why(exc: BaseException) -> str:
    exc = _leaf(exc)
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


def _transport(server: McpServerConfig, stderr: TextIO) -> Any:
    from mcp.client.stdio import StdioServerParameters, stdio_client

    if server.url is not None:
        return server.url
    params = StdioServerParameters(
        command=str(server.command),
        args=server.args,
        env={name: expand(value, server.name) for name, value in server.env.items()},
        cwd=server.cwd,
    )
    return stdio_client(params, errlog=stderr)


def expand(value: str, server: str) -> str:
    """`${NAME}` in an env value, from this process's environment (secrets stay out of history)."""

    def lookup(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise McpUnavailable(f"MCP server {server!r}: its env refers to ${{{name}}}, which is not set")
        return os.environ[name]

    return _VAR.sub(lookup, value)


async def _list_tools(client: Client) -> list[McpTool]:
    tools: list[McpTool] = []
    cursor: str | None = None
    for _ in range(100):  # a paginator that never ends cannot hang the start
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


POOL = McpPool()
atexit.register(POOL.close)
