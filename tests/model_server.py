"""An OpenAI-compatible model server on loopback, for tests that need the real HTTP path.

It speaks `/v1/chat/completions` as llama.cpp's `llama-server` or OpenAI do, so litellm, its
timeouts and its errors are exercised for real, and answers Cairn's prompts as `cairn/offline`
does (a prompt that shows the JSON object it wants gets that object; anything else gets "ok"). A
test switches it to `fail` (HTTP 500), `refuse` (the socket closed) or `stall` (no answer for
longer than the client waits), makes it refuse a strict JSON schema as some servers do
(`refuse_schema`: HTTP 400), or slow (`delay` seconds a reply), and reads what it was sent.

>>> with ModelServer() as server:  # doctest: +SKIP
...     server.mode = "fail"
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Mode = Literal["ok", "fail", "stall"]


class ModelServer:
    def __init__(
        self,
        stall_seconds: float = 30.0,
        fail_after: int | None = None,
        refuse_schema: bool = False,
        delay: float = 0.0,
    ) -> None:
        self.mode: Mode = "ok"
        self.stall_seconds = stall_seconds
        self.fail_after = fail_after  # answer this many requests, then fail until told otherwise
        self.refuse_schema = refuse_schema
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
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
        content = _answer(body.get("messages") or [])
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
        return 200, {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [choice],
            "usage": usage,
        }


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
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting (stall)
                pass

        def log_message(self, *args: object) -> None:
            """Quiet: tests read `server.requests`."""

    return Handler
