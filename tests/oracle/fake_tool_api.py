"""A fake Messages API that scripts one MCP tool call (offline, for the real Claude Code).

When the request offers TOOL (listed as a deferred tool or loaded), the model's first answer
loads it (ToolSearch `select:`), the second calls it with ARGS, the third ends the turn; every
request body is logged for the test to read. Usage: fake_tool_api.py PORT LOGFILE TOOL ARGS_JSON
"""

import json
import sys
import uuid
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: the repository
from tests.oracle.fake_api import Handler as PlainHandler
from tests.oracle.fake_api import sse

LOG = sys.argv[2] if len(sys.argv) > 4 else "/dev/null"
TOOL = sys.argv[3] if len(sys.argv) > 4 else ""
ARGS = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}


def stream(model: str, blocks: list[tuple[dict[str, Any], dict[str, Any]]], stop: str) -> bytes:
    mid = "msg_" + uuid.uuid4().hex[:20]
    out = [
        sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                },
            },
        )
    ]
    for i, (start, delta) in enumerate(blocks):
        out.append(
            sse(
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": start},
            )
        )
        out.append(
            sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})
        )
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
        )
    )
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def results(req: dict[str, Any]) -> int:
    n = 0
    for m in req.get("messages", []):
        c = m.get("content")
        if isinstance(c, list):
            n += sum(1 for p in c if isinstance(p, dict) and p.get("type") == "tool_result")
    return n


class Handler(PlainHandler):
    """fake_api's handler (GET, HEAD, replies), its POST scripted."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        with open(LOG, "a") as fh:
            fh.write(
                json.dumps({"path": self.path, "body": body.decode("utf-8", "replace")}) + "\n"
            )
        try:
            req: dict[str, Any] = json.loads(body)
        except ValueError:
            req = {}
        if "count_tokens" in self.path:
            self._reply(b'{"input_tokens": 10}')
            return
        model = str(req.get("model", "claude"))
        names = [t.get("name") for t in req.get("tools", []) if isinstance(t, dict)]
        offered = TOOL in names or TOOL in json.dumps(req.get("system", "")) + json.dumps(
            req.get("messages", [])
        )
        step = results(req)
        if offered and req.get("tools") and step < 2:
            if step == 0 and TOOL not in names:
                name, args, tid = "ToolSearch", {"query": "select:" + TOOL}, "toolu_01search"
            else:
                name, args, tid = TOOL, ARGS, "toolu_02gitmem"
            blocks = [
                (
                    {"type": "tool_use", "id": tid, "name": name, "input": {}},
                    {"type": "input_json_delta", "partial_json": json.dumps(args)},
                )
            ]
            self._reply(stream(model, blocks, "tool_use"), "text/event-stream")
            return
        blocks = [({"type": "text", "text": ""}, {"type": "text_delta", "text": "ok"})]
        if req.get("stream"):
            self._reply(stream(model, blocks, "end_turn"), "text/event-stream")
            return
        self._reply(
            json.dumps(
                {
                    "id": "msg_x",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": "ok"}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                }
            ).encode()
        )


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
