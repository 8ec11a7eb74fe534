"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions and Anthropic messages APIs,
playing a script of behaviours: ok, 429, 500, sleep (timeout), malformed, 401 (echoing the key), any JSON, raw
bytes with any status and content type, and an answer that echoes the Authorization header."""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeLLMServer:
    def __init__(self) -> None:
        self.script: deque[tuple] = deque()
        self.requests: list[dict] = []
        self.default = ("ok", "Yes, the agency consulted USFWS.")
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: ANN002 - keep test output clean
                pass

            def do_POST(self):  # noqa: N802 - http.server's name
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                action = server.script.popleft() if server.script else server.default
                kind = action[0]
                if kind == "sleep":
                    time.sleep(action[1])
                    return self._json(200, server._ok(self.path, "late"))
                if kind == "429":
                    return self._json(429, {"error": {"message": "rate limited", "type": "rate_limit"}},
                                      {"retry-after-ms": "20", "retry-after": "0"})
                if kind == "500":
                    return self._json(500, {"error": {"message": "boom", "type": "server_error"}})
                if kind == "401":
                    key = (self.headers.get("authorization") or "").removeprefix("Bearer ") or self.headers.get("x-api-key")
                    return self._json(401, {"error": {"message": f"Incorrect API key provided: {key}",
                                                      "type": "authentication_error"}})
                if kind == "json":  # any JSON object the server chooses to send, with status 200
                    return self._json(200, action[1])
                if kind == "raw":  # (raw, status, body bytes, content type): HTML error pages, truncated bodies
                    _, status, raw, ctype, *declared = action  # a declared length > len(raw): a cut-off body
                    self.send_response(status)
                    self.send_header("content-type", ctype)
                    self.send_header("content-length", str(declared[0] if declared else len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                    return None
                if kind == "echo_key":  # an answer that quotes the Authorization header back
                    key = self.headers.get("authorization") or f"x-api-key: {self.headers.get('x-api-key')}"
                    return self._json(200, server._ok(self.path, f"Your request carried {key}. Yes."))
                if kind == "malformed":
                    raw = b"{this is not json"
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                    return None
                text = action[1](body) if callable(action[1]) else action[1]  # a reply computed from the request
                return self._json(200, server._ok(self.path, text))

            def _json(self, status: int, obj: dict, headers: dict | None = None) -> None:
                raw = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @staticmethod
    def _ok(path: str, text: str) -> dict:
        if path.endswith("/messages"):
            return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                    "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                    "usage": {"input_tokens": 42, "output_tokens": 7}}
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-test",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}}

    def __enter__(self) -> FakeLLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:  # noqa: ANN002
        self.httpd.shutdown()
        self.httpd.server_close()
