"""Ingest spread over worker processes, measured end to end on this machine.

Starts everything it needs: a throwaway PostgreSQL cluster in a temporary folder (initdb and pg_ctl from the
Debian package `.ci/run` installs) and a Chroma server on a free loopback port, each fresh for each pass. Makes
``--docs`` distinct PDFs from the sample EIS (each its pages in another rotated order, so no two are the same),
queues them with ``python -m lib ingest --queue`` and times how long 1 worker and then 2 workers take to index
them all (from queueing to the last job done; the workers are started and waiting first, and each loads its
embedder on its first job, in both passes). Each worker embeds with NEPAQA_EMBED_THREADS=1 (a worker per core):
the same work and the same per-worker setting on both sides. A third pass kills one of 2 workers with kill -9
mid-ingest and checks that the other takes its job again (on one host a dead process frees its lease at once; a
worker lost on another machine frees it after the lease's 30 s expiry, which this script does not wait for). A
fourth pass, for reference only, runs 1 worker embedding on every core (the default for a lone process).

Every pass counts documents and vectors against what was queued: ``duplicates`` (a file indexed twice, or
vectors beyond a document's chunks) and ``missing`` (a file not indexed, or vectors short of its chunks).

    .venv/bin/python bench/workers.py [--docs 24] [--pages 24]

The last line is JSON: {"docs", "workers": {"1": docs/min, "2": docs/min}, "killed_worker_recovered",
"duplicates", "missing", ...}.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pymupdf  # noqa: E402
from sqlalchemy import create_engine, func, select, text  # noqa: E402
from sqlalchemy.pool import NullPool  # noqa: E402

from lib.core import config  # noqa: E402
from lib.storage import tables  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_pdfs(folder: Path, n: int, pages: int) -> list[Path]:
    """``n`` PDFs of ``pages`` pages of the sample EIS, document i starting at page i·step (rotated order)."""
    folder.mkdir(parents=True, exist_ok=True)
    src = pymupdf.open(config.SAMPLE_PDF)
    total = src.page_count
    step = max(1, total // n)
    out = []
    for i in range(n):
        doc = pymupdf.open()
        for j in range(pages):
            p = (i * step + j) % total
            doc.insert_pdf(src, from_page=p, to_page=p)
        path = folder / f"rotated_{i:03d}.pdf"
        doc.save(path)
        doc.close()
        out.append(path)
    return out


class Postgres:
    """A throwaway cluster: initdb in a temporary folder, pg_ctl start on a free port, removed at the end."""

    def __init__(self, base: Path) -> None:
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        if not bins:
            raise SystemExit("error: no initdb found; install the postgresql package (bash .ci/run does)")
        self.bin = bins[-1].parent
        self.dir = base / "pg"
        self.dir.mkdir()
        self.port = free_port()
        self.as_root = os.geteuid() == 0  # initdb refuses to run as root: run it as the postgres user
        if self.as_root:
            shutil.chown(base, "postgres")
            shutil.chown(self.dir, "postgres")
        self._run([str(self.bin / "initdb"), "-D", str(self.dir), "-A", "trust", "-U", "postgres", "--no-sync"])
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.dir), "-l", str(self.dir / "log"), "-w", "start", "-o",
                   f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                   f"-c max_connections=200"])
        self.admin = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, cmd: list[str]) -> None:
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def database(self, name: str) -> str:
        eng = create_engine(self.admin, poolclass=NullPool, isolation_level="AUTOCOMMIT")
        with eng.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        eng.dispose()
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.dir), "-m", "immediate", "stop"])


def chroma(base: Path) -> tuple[subprocess.Popen, str]:
    exe = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    port = free_port()
    proc = subprocess.Popen([exe, "run", "--path", str(base), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    from lib.collection.vectors import make_client  # after the server exists: chromadb is heavy

    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            make_client(url).heartbeat()
            return proc, url
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.5)
    proc.kill()
    raise SystemExit("error: the Chroma server did not start in 90 s")


def worker(env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "lib", "worker"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=log.open("w"))


def wait_for(check, timeout: float, what: str):  # noqa: ANN001, ANN201 - a poll
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    raise SystemExit(f"error: timed out waiting for {what}")


def job_rows(eng) -> list:  # noqa: ANN001
    with eng.connect() as c:
        return c.execute(select(tables.jobs.c.job_id, tables.jobs.c.status, tables.jobs.c.resumed_from)
                         .where(tables.jobs.c.kind == "ingest")).fetchall()


def count(eng, chroma_url: str, queued: int) -> tuple[int, int, int]:  # noqa: ANN001
    """(documents, duplicates, missing) against what was queued: documents and their vectors."""
    from lib.collection.vectors import COLLECTION, make_client

    coll = make_client(chroma_url).get_collection(COLLECTION)
    got = coll.get(include=["metadatas"])
    per_doc: dict[str, int] = {}
    for m in got["metadatas"] or []:
        per_doc[m["doc_id"]] = per_doc.get(m["doc_id"], 0) + 1
    with eng.connect() as c:
        docs = c.execute(select(tables.documents.c.doc_id, tables.documents.c.sha256)).fetchall()
        chunks = dict(c.execute(select(tables.chunks.c.doc_id, func.count()).group_by(tables.chunks.c.doc_id))
                      .fetchall())
    distinct = len({d.sha256 for d in docs})
    dup = (len(docs) - distinct) + sum(max(0, per_doc.get(d.doc_id, 0) - chunks.get(d.doc_id, 0)) for d in docs)
    dup += sum(n for doc_id, n in per_doc.items() if doc_id not in {d.doc_id for d in docs})  # vectors of no doc
    missing = max(0, queued - distinct) + sum(max(0, chunks.get(d.doc_id, 0) - per_doc.get(d.doc_id, 0))
                                              for d in docs)
    return distinct, dup, missing


def one_pass(base: Path, pg: Postgres, folder: Path, n_workers: int, docs: int, kill: bool = False,
             threads: str = "1") -> dict:
    name = f"pass_{n_workers}{'_kill' if kill else ''}_t{threads or 'all'}"
    url = pg.database(name)
    srv, chroma_url = chroma(base / f"chroma_{name}")
    env = {**os.environ, "NEPAQA_HOME": str(base / "home"), "NEPAQA_DATABASE_URL": url, "NEPAQA_WORKERS": "queue",
           "NEPAQA_CHROMA_URL": chroma_url, "NEPAQA_EMBED_THREADS": threads}
    eng = create_engine(url, poolclass=NullPool)
    logs = [base / f"{name}_worker{i}.log" for i in range(n_workers)]
    procs = [worker(env, log) for log in logs]
    try:
        wait_for(lambda: all("taking jobs" in log.read_text() for log in logs), 120, "the workers to start")
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "lib", "ingest", "--queue", str(folder)], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise SystemExit(f"error: ingest --queue failed: {out.stderr.strip()}")
        summary = json.loads(out.stdout)
        recovered = None
        if kill:  # kill -9 a worker while it indexes a document, after the first documents are done
            wait_for(lambda: sum(r.status == "done" for r in job_rows(eng)) >= 3, 600, "the first documents")
            victim = wait_for(lambda: next((p for p in procs if any(h.pid == p.pid for h in _held(eng))), None),
                              120, "a worker mid-ingest")
            killed_jobs = {h.name.removeprefix("job:") for h in _held(eng) if h.pid == victim.pid}
            victim.send_signal(signal.SIGKILL)
            victim.wait(10)
        done = wait_for(lambda: (rows := job_rows(eng)) and all(r.status not in ("queued", "running")
                                                               for r in rows) and rows, 1800, "every job to end")
        seconds = time.perf_counter() - started
        if kill:
            by_parent = {r.resumed_from: r for r in done if r.resumed_from}
            recovered = bool(killed_jobs) and all(
                (nxt := by_parent.get(j)) is not None and nxt.status == "done" for j in killed_jobs)
        n_docs, dup, missing = count(eng, chroma_url, summary["queued"])
        failed = [r.job_id for r in done if r.status == "failed"]
        return {"queued": summary["queued"], "indexed": n_docs, "seconds": round(seconds, 1),
                "docs_per_min": round(n_docs / seconds * 60, 2), "duplicates": dup, "missing": missing,
                "failed_jobs": len(failed), "recovered": recovered}
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
        srv.terminate()
        srv.wait(30)
        eng.dispose()


def _held(eng) -> list:  # noqa: ANN001
    with eng.connect() as c:
        return c.execute(select(tables.leases.c.name, tables.leases.c.pid)
                         .where(tables.leases.c.name.like("job:%"))).fetchall()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=24)
    ap.add_argument("--pages", type=int, default=24, help="pages of the sample in each PDF")
    a = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="nepaqa-workers-"))
    pg = None
    try:
        folder = base / "pdfs"
        make_pdfs(folder, a.docs, a.pages)
        # the embedder's ONNX export is made once, before any pass: no pass pays for it
        os.environ["NEPAQA_HOME"] = str(base / "home")
        from lib.models.embedding import get_embedder  # heavy: after the environment names the home

        get_embedder()
        pg = Postgres(base)
        one = one_pass(base, pg, folder, 1, a.docs)
        print(f"1 worker:  {one}", flush=True)
        two = one_pass(base, pg, folder, 2, a.docs)
        print(f"2 workers: {two}", flush=True)
        killed = one_pass(base, pg, folder, 2, a.docs, kill=True)
        print(f"2 workers, one killed with kill -9 mid-ingest: {killed}", flush=True)
        # for reference, not the ratio: one worker with every core (the default), as a single machine would run
        alone = one_pass(base, pg, folder, 1, a.docs, threads="")
        print(f"1 worker, embedding on every core (the default): {alone}", flush=True)
        per_doc_s = one["seconds"] / max(one["indexed"], 1)  # one worker, one core
        print(json.dumps({
            "docs": a.docs, "pages_per_doc": a.pages,
            "workers": {"1": one["docs_per_min"], "2": two["docs_per_min"]},
            "one_worker_all_cores": alone["docs_per_min"],
            "speedup": round(two["docs_per_min"] / max(one["docs_per_min"], 1e-9), 2),
            "killed_worker_recovered": bool(killed["recovered"]),
            "duplicates": sum(p["duplicates"] for p in (one, two, killed, alone)),
            "missing": sum(p["missing"] for p in (one, two, killed, alone)),
            "failed_jobs": sum(p["failed_jobs"] for p in (one, two, killed, alone)),
            "seconds_per_page_per_core": round(per_doc_s / a.pages, 4),
        }))
    finally:
        if pg is not None:
            pg.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
