"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions and Anthropic messages APIs,
playing a script of behaviours: ok, 429, 500, sleep (timeout), malformed, 401 (echoing the key), any JSON, raw
bytes with any status and content type, and an answer that echoes the Authorization header. It lists its models
(GET /v1/models) and, where ``ollama`` is set, answers Ollama's /api/show and /api/ps."""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeLLMServer:
    def __init__(self, port: int = 0) -> None:  # port: a fixed one (a server started again where it was)
        self.script: deque[tuple] = deque()
        self.requests: list[dict] = []
        self.default = ("ok", "Yes, the agency consulted USFWS.")
        self.served = ["llama3", "gpt-test"]  # what GET /v1/models lists
        self.stream_delay = 0.01  # seconds between streamed pieces
        self.model_fields: dict = {}  # more fields of each listed model (vLLM's max_model_len)
        self.ollama: dict | None = None  # {"show": /api/show's reply, "ps": /api/ps's (None: no such route)}
        self.track_pids = False  # True: each request records the process that sent it (a local client's pid)
        self.in_flight = self.most_in_flight = 0  # requests being answered now, and the most at once
        self._count = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: ANN002 - keep test output clean
                pass

            def do_GET(self):  # noqa: N802 - http.server's name; the model list a client reads first
                if self.path == "/api/version" and server.ollama:
                    return self._json(200, {"version": "0.12.3"})
                if self.path == "/api/ps" and server.ollama and server.ollama.get("ps") is not None:
                    return self._json(200, server.ollama["ps"])
                if self.path.rstrip("/").endswith("/models"):
                    return self._json(200, {"object": "list", "data": [
                        {"id": m, "object": "model", "owned_by": "fake", **server.model_fields} for m in server.served]})
                return self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

            def do_POST(self):  # noqa: N802 - http.server's name
                if self.path == "/api/show":  # Ollama's model details, outside the script; 404 where not Ollama
                    self.rfile.read(int(self.headers.get("content-length") or 0))
                    if server.ollama:
                        return self._json(200, server.ollama["show"])
                    return self._json(404, {"detail": "Not Found"})
                with server._count:
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                try:
                    return self._post()
                finally:
                    with server._count:
                        server.in_flight -= 1

            def _post(self):  # noqa: ANN202 - one request, as the script says
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._count:
                    action = server.script.popleft() if server.script else server.default
                server.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                        "body": body, "at": time.time(), "kind": action[0],
                                        "pid": server._pid_of(self.client_address[1]) if server.track_pids else None})
                kind = action[0]
                if kind == "sleep":
                    time.sleep(action[1])
                    text = action[2] if len(action) > 2 else "late"
                    return self._json(200, server._ok(self.path, text(body) if callable(text) else text))
                if kind == "429":  # ("429",): retry in 20 ms; ("429", s): Retry-After s seconds, no ms header
                    wait = {"retry-after": str(action[1])} if len(action) > 1 else {"retry-after-ms": "20",
                                                                                     "retry-after": "0"}
                    return self._json(429, {"error": {"message": "rate limited", "type": "rate_limit"}}, wait)
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
                    return self._reply(body, f"Your request carried {key}. Yes.")
                if kind == "stream_broken":  # a stream that starts well, then sends garbage and stops
                    return self._sse(["Partial ", "answer "], broken=True)
                if kind == "stream_cut":  # a stream that starts well and just ends, unfinished
                    return self._sse(["Partial ", "answer "], cut=True)
                if kind == "malformed":
                    raw = b"{this is not json"
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                    return None
                text = action[1](body) if callable(action[1]) else action[1]  # a reply computed from the request
                return self._reply(body, text)

            def _reply(self, body: dict, text: str) -> None:
                if body.get("stream"):  # server-sent events, a few characters at a time
                    return self._sse([text[i : i + 7] for i in range(0, len(text), 7)])
                return self._json(200, server._ok(self.path, text))

            def _sse(self, pieces: list[str], broken: bool = False, cut: bool = False) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                anthropic = self.path.endswith("/messages")

                def event(name: str, data: dict | str) -> None:
                    raw = data if isinstance(data, str) else json.dumps(data)
                    self.wfile.write((f"event: {name}\n" if anthropic else "").encode() + f"data: {raw}\n\n".encode())
                    self.wfile.flush()

                if anthropic:
                    event("message_start", {"type": "message_start", "message": {
                        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": [],
                        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 42, "output_tokens": 1}}})
                    event("content_block_start", {"type": "content_block_start", "index": 0,
                                                  "content_block": {"type": "text", "text": ""}})
                for piece in pieces:
                    if anthropic:
                        event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                      "delta": {"type": "text_delta", "text": piece}})
                    else:
                        event("chunk", {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
                                        "model": "gpt-test", "choices": [{"index": 0, "delta": {"content": piece},
                                                                          "finish_reason": None}]})
                    time.sleep(server.stream_delay)
                if broken:
                    self.wfile.write((b"event: content_block_delta\n" if anthropic else b"")
                                     + b"data: {this is not json\n\n")
                    self.wfile.flush()
                    return None
                if cut:
                    return None
                if anthropic:
                    event("content_block_stop", {"type": "content_block_stop", "index": 0})
                    event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                                               "stop_sequence": None},
                                            "usage": {"output_tokens": 7}})
                    event("message_stop", {"type": "message_stop"})
                else:
                    event("chunk", {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
                                    "model": "gpt-test", "choices": [{"index": 0, "delta": {},
                                                                      "finish_reason": "stop"}]})
                    event("chunk", {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
                                    "model": "gpt-test", "choices": [],
                                    "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}})
                    event("done", "[DONE]")
                return None

            def _json(self, status: int, obj: dict, headers: dict | None = None) -> None:
                raw = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

        ThreadingHTTPServer.allow_reuse_address = True
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @staticmethod
    def _pid_of(port: int) -> int | None:
        """The local process whose socket on ``port`` sent the request (psutil reads the kernel's table)."""
        import psutil  # only for tests that ask which process called

        for conn in psutil.net_connections(kind="tcp"):
            if conn.laddr and conn.laddr.port == port and conn.pid:
                return conn.pid
        return None

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


@contextmanager
def openai_loopback(monkeypatch, key: str, model: str, timeout: float = 5, retries: int = 0):  # noqa: ANN001
    """A FakeLLMServer configured as the OpenAI endpoint (key, model, timeout, retries) with a fresh model registry,
    for the tests of the features that call a connected model."""
    from lib.models import registry

    with FakeLLMServer() as srv:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_MODEL", model)
        monkeypatch.setenv("NEPAQA_PROVIDER_TIMEOUT", str(timeout))
        monkeypatch.setenv("NEPAQA_PROVIDER_RETRIES", str(retries))
        registry.reset()
        try:
            yield srv
        finally:
            registry.reset()
