"""A fake Anthropic Messages API on 127.0.0.1 that records each request body and answers with a
minimal streamed reply, so the real Claude Code binary can run a session offline and we can read
exactly what it put into the model's context (system prompt, memory, hook output).

Usage: fake_api.py PORT LOGFILE
"""

from __future__ import annotations

import json
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOG = sys.argv[2] if len(sys.argv) > 2 else "/dev/null"


def sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def streamed(mid: str, model: str, text: str) -> bytes:
    usage = {"input_tokens": 10, "output_tokens": 1}
    message: dict[str, object] = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return b"".join(
        [
            sse("message_start", {"type": "message_start", "message": message}),
            sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": text},
                },
            ),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            sse("message_stop", {"type": "message_stop"}),
        ]
    )


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self, body: bytes, kind: str = "application/json") -> None:
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._reply(b"{}")

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.end_headers()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        with open(LOG, "a") as fh:
            fh.write(json.dumps({"path": self.path, "body": body.decode("utf-8", "replace")}))
            fh.write("\n")
        try:
            req = json.loads(body)
        except ValueError:
            req = {}
        if "count_tokens" in self.path:
            self._reply(b'{"input_tokens": 10}')
            return
        mid, model = "msg_" + uuid.uuid4().hex[:20], req.get("model", "claude")
        if req.get("stream"):
            self._reply(streamed(mid, model, "ok"), "text/event-stream")
            return
        resp = {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }
        self._reply(json.dumps(resp).encode())


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
