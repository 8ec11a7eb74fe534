"""The deployment page's "Run on several machines" commands (docs/deployment.md), run as processes on this
machine: its placeholders replaced by a test database, free ports and a folder, every other word as written. The
app answers its health check, two workers index a folder queued with a manifest, and a search over every document
finds passages of both."""
from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.conftest import ROOT, make_text_pdf


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _docs_block() -> list[str]:
    page = (ROOT / "docs" / "deployment.md").read_text()
    section = page.split("## Run on several machines", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [ln.strip() for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _until(check, timeout: float, what: str, procs=()):  # noqa: ANN001, ANN202 - a poll
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in procs:
            assert p.poll() is None, f"{what}: a process ended early ({p.args})"
        got = check()
        if got:
            return got
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_deployment_page_commands_run_an_app_two_workers_a_bulk_ingest_and_a_search(tmp_path, pg_url):
    lines = _docs_block()
    chroma_port, app_port = _free_port(), _free_port()
    folder = tmp_path / "archive" / "eis"
    folder.mkdir(parents=True)
    make_text_pdf(folder / "wells.pdf", ["Groundwater monitoring wells would be sampled every quarter near the "
                                         "launch site, and results reported to the state. " * 6])
    make_text_pdf(folder / "levee.pdf", ["Groundwater monitoring wells along the levee would track seepage "
                                         "during the flood season, the Corps said. " * 6])
    (tmp_path / "archive" / "manifest.csv").write_text("file,lead_agency\nlevee.pdf,U.S. Army Corps of Engineers\n")
    swap = {"postgresql+psycopg://USER:PASSWORD@DB_HOST:5432/nepaqa": pg_url,
            "CHROMA_HOST:8000": f"127.0.0.1:{chroma_port}", "--port 8000": f"--port {chroma_port}",
            "/srv/chroma": str(tmp_path / "chroma"), "0.0.0.0": "127.0.0.1", "/archive/": f"{tmp_path}/archive/"}

    def real(line: str) -> list[str]:
        for old, new in swap.items():
            line = line.replace(old, new)
        argv = shlex.split(line)
        if argv[0] == "python":
            argv[0] = sys.executable
        if argv[0] == "chroma":
            argv[0] = str(Path(sys.executable).parent / "chroma")
        return argv

    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "home")}
    for line in lines:  # the exports, as a shell would set them
        if m := re.match(r"export (\w+)=(\S+)$", line):
            env[m[1]] = real(m[2])[0]
    assert {"NEPAQA_DATABASE_URL", "NEPAQA_CHROMA_URL", "NEPAQA_WORKERS"} <= set(env)
    commands = [ln for ln in lines if not ln.startswith("export ")]
    start = {c for c in commands if c.startswith(("chroma run", "bash .ci/start", "python -m lib worker"))}
    assert len([c for c in commands if c.startswith("python -m lib worker")]) == 2  # the page's two workers
    procs: list[subprocess.Popen] = []
    try:
        for c in commands:
            if c not in start and not c.startswith("python -m lib worker"):
                continue
            argv = real(c)
            if c.startswith("bash .ci/start"):
                argv += ["--server.port", str(app_port)]  # a free port (8501 may be taken here)
            procs.append(subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                          stderr=open(tmp_path / f"proc{len(procs)}.log", "w")))  # noqa: SIM115
            if c.startswith("chroma run"):  # the workers and the app need the server up
                _until(lambda: _get(f"http://127.0.0.1:{chroma_port}/api/v2/heartbeat"), 90, "chroma", procs)
        _until(lambda: _get(f"http://127.0.0.1:{app_port}/_stcore/health") == "ok", 180, "the app", procs)
        results = {}
        for c in commands:
            if c in start:
                continue
            out = subprocess.run(real(c), cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
            assert out.returncode == 0, (c, out.stderr)
            results[c.split()[3]] = json.loads(out.stdout)
            if c.startswith("python -m lib ingest"):
                queued = results["ingest"]
                assert (queued["queued"], queued["refused"], queued["manifest_unmatched"]) == (2, [], [])
                _until(lambda: all(j["status"] == "done" for j in _jobs(env, queued["jobs"])), 300,
                       "both documents indexed by the workers", procs)
        indexed = [j for j in results["jobs"] if j["kind"] == "ingest"]
        assert len(indexed) == 2 and {j["origin"] for j in indexed} == {"worker"}  # taken by the workers
        meta = subprocess.run([sys.executable, "-m", "lib", "meta", hits_doc(results, "levee")], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
        assert meta.returncode == 0, meta.stderr
        assert json.loads(meta.stdout)["lead_agency"]["value"] == "U.S. Army Corps of Engineers"  # the manifest's
        hits = results["search"]
        assert {Path(h["doc_file"]).stem for h in hits} == {"wells", "levee"}, hits  # both, from the Chroma server
        assert all("Groundwater monitoring wells" in h["text"] for h in hits)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
    errs = "".join(f.read_text() for f in tmp_path.glob("proc*.log"))
    assert "Traceback" not in errs


def hits_doc(results: dict, stem: str) -> str:
    """The id of the document the search found under this file name."""
    return next(h["doc_id"] for h in results["search"] if Path(h["doc_file"]).stem == stem)


def _get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=3) as r:  # noqa: S310 - a loopback URL made here
            return r.read().decode()
    except OSError:
        return None


def _jobs(env: dict, ids: list[str]) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "lib", "jobs", "--limit", "50"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    return [j for j in json.loads(out.stdout) if j["job_id"] in ids] if out.returncode == 0 else []
