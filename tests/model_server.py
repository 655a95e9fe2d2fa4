"""An OpenAI-compatible model server on loopback, for tests that need the real HTTP path.

It speaks `/v1/chat/completions` as llama.cpp's `llama-server` or OpenAI do, whole or streamed
(`stream: true`: server-sent events, one token a chunk, usage last when `stream_options` asks for
it), so litellm, its timeouts and its errors are exercised for real, and answers Cairn's prompts as
`cairn/offline` does (a prompt that shows the JSON object it wants gets that object; anything
else gets "ok"). A test switches it to `fail` (HTTP 500), `refuse` (the socket closed) or `stall`
(no answer for longer than the client waits), to `repeat` (a reply that repeats `runaway`'s block
forever, streamed until the client hangs up, whatever `max_tokens` says) or `ramble` (a reply that
never repeats and stops at `max_tokens`, `finish_reason` "length"), makes it refuse a strict JSON
schema as some servers do (`refuse_schema`: HTTP 400), answer every request with one text
(`answer`) or the requests a test knows with its own (`respond`), or slow (`delay` seconds a
reply, `token_delay` seconds a streamed token), and reads
what it was sent and how many tokens each streamed reply got out before the client hung up
(`streamed`).

>>> with ModelServer() as server:  # doctest: +SKIP
...     server.mode = "fail"
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Mode = Literal["ok", "fail", "stall", "repeat", "ramble"]
TOKEN_CHARS = 4  # a streamed token: four characters of the reply
RUNAWAY = (
    '{"candidates": [',
    '{"tool": "read_file", "params": {"path": "source:docs/intro.md"}, "rationale": "Read the intro.", '
    '"expected_evidence": ["execution"]}, ',
)
MOST_TOKENS = 100_000  # `repeat` stops here if the client never hangs up (a test that failed)


class ModelServer:
    def __init__(
        self,
        stall_seconds: float = 30.0,
        fail_after: int | None = None,
        refuse_schema: bool = False,
        delay: float = 0.0,
        token_delay: float = 0.0,
    ) -> None:
        self.mode: Mode = "ok"
        self.stall_seconds = stall_seconds
        self.fail_after = fail_after  # answer this many requests, then fail until told otherwise
        self.refuse_schema = refuse_schema
        self.delay = delay
        self.token_delay = token_delay
        self.runaway = RUNAWAY  # (prefix, block) of a `repeat` reply
        self.answer: str | None = None  # the reply to every request, in place of the offline model's
        # A reply of the test's own for the requests it knows (None: the offline model's)
        self.respond: Callable[[list[dict[str, Any]]], str | None] | None = None
        self.requests: list[dict[str, Any]] = []
        self.streamed: list[int] = []  # tokens written per streamed reply, until it ended or the client left
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.requests.append(body)
        if self.fail_after is not None and len(self.requests) > self.fail_after:
            self.mode, self.fail_after = "fail", None
        if self.mode == "fail":
            return 500, {"error": {"message": "the model is loading", "type": "server_error"}}
        if self.refuse_schema and (body.get("response_format") or {}).get("type") == "json_schema":
            refused = "response_format type must be json_object or text"
            return 400, {"error": {"message": refused, "type": "invalid_request_error"}}
        if self.mode == "stall":
            time.sleep(self.stall_seconds)
        time.sleep(self.delay)
        if body.get("stream"):
            return 200, {}  # the handler streams `tokens(body)`
        tokens, finish = self.tokens(body), "stop"
        if self.mode in ("repeat", "ramble"):
            tokens, finish = itertools.islice(tokens, int(body.get("max_tokens") or 16)), "length"
        content = "".join(tokens)
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        if finish == "length":
            usage = {"prompt_tokens": 100, "completion_tokens": len(content) // TOKEN_CHARS}
        choice = {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}}
        return 200, {**_head(body, "chat.completion"), "choices": [choice], "usage": usage}

    def tokens(self, body: dict[str, Any]) -> Iterator[str]:
        """The reply, a token at a time: the offline answer, or a runaway (endless in `repeat`)."""
        if self.mode == "repeat":
            prefix, block = self.runaway
            text: Iterator[str] = itertools.chain(prefix, itertools.cycle(block))
            return _pieces(itertools.islice(text, MOST_TOKENS * TOKEN_CHARS))
        if self.mode == "ramble":
            words = (f"word {n}, " for n in itertools.count())
            text = itertools.chain('{"synthesis": "', itertools.chain.from_iterable(words))
            return itertools.islice(_pieces(text), int(body.get("max_tokens") or 16))
        messages = body.get("messages") or []
        own = self.respond(messages) if self.respond is not None else None
        text = own if own is not None else self.answer if self.answer is not None else _answer(messages)
        return _pieces(iter(text))

    def stream(self, body: dict[str, Any], write: Any) -> None:
        """Send the reply as server-sent events; count the tokens that went out."""
        finish = "length" if self.mode == "ramble" else "stop"
        self.streamed.append(0)
        index = len(self.streamed) - 1
        for token in self.tokens(body):
            write(_event(body, [{"index": 0, "delta": {"content": token}, "finish_reason": None}]))
            self.streamed[index] += 1
            time.sleep(self.token_delay)
        write(_event(body, [{"index": 0, "delta": {}, "finish_reason": finish}]))
        if (body.get("stream_options") or {}).get("include_usage"):
            sent = self.streamed[index]
            usage = {"prompt_tokens": 100, "completion_tokens": sent, "total_tokens": 100 + sent}
            write(_event(body, [], usage))
        write("data: [DONE]\n\n")


def _pieces(chars: Iterator[str]) -> Iterator[str]:
    while piece := "".join(itertools.islice(chars, TOKEN_CHARS)):
        yield piece


def _head(body: dict[str, Any], kind: str) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": kind, "created": int(time.time()), "model": body.get("model", "m")}


def _event(body: dict[str, Any], choices: list[dict[str, Any]], usage: dict[str, int] | None = None) -> str:
    chunk = {**_head(body, "chat.completion.chunk"), "choices": choices} | ({"usage": usage} if usage else {})
    return f"data: {json.dumps(chunk)}\n\n"


def _answer(messages: list[dict[str, str]]) -> str:
    from cairn.tasks.messages.prompts import PromptError
    from cairn.tasks.offline import respond

    try:
        return respond(messages)
    except PromptError:
        shown = str(messages[-1].get("content") or "").partition("JSON object only: ")[2] if messages else ""
        return shown or "ok"


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            status, payload = server.reply(body)
            try:
                if status == 200 and body.get("stream"):
                    self._stream(body)
                    return
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting, or hung up
                pass

        def _stream(self, body: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()  # HTTP/1.0: the reply ends when the connection closes

            def write(event: str) -> None:
                self.wfile.write(event.encode())
                self.wfile.flush()

            server.stream(body, write)

        def log_message(self, *args: object) -> None:
            """Quiet: tests read `server.requests`."""

    return Handler
