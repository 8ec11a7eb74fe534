"""The store under concurrency and crashes: leases keep a sweep away from writes in flight, writers of one
document take turns, and `check` proves every document has its vectors. Real processes, embedded and server."""
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from lib.collection.document_store import DocumentStore
from lib.collection.maintenance import Repaired, check, repair
from lib.collection.vectors import VectorIndex, make_client
from lib.storage import leases, tables
from lib.storage.engine import get_engine
from tests.collection.test_chroma_server import chroma_server  # noqa: F401 - fixture
from tests.conftest import ROOT, SAMPLE_PDF

SWEEPER = """
import json, os, sys, time
from lib.collection.document_store import DocumentStore
from lib.collection.maintenance import repair
from lib.collection.vectors import VectorIndex, make_client
from lib.core import config
from lib.models.embedding import get_embedder
emb = get_embedder()
skipped, removed, n = set(), 0, 0
while not os.path.exists(sys.argv[1]):
    # a fresh client and store each time: what every start of the app or the command line does
    idx = VectorIndex(make_client(), emb, embedded=not config.get("NEPAQA_CHROMA_URL"))
    out = repair(DocumentStore(idx))
    skipped |= set(out.skipped_live); removed += out.removed; n += 1
    if n == 1:
        print("ready", flush=True)
    time.sleep(0.2)
print(json.dumps({"sweeps": n, "skipped": sorted(skipped), "removed": removed}), flush=True)
"""


SLOW_COMMIT = """
import sys, time
from lib.app.cli import main
from lib.collection import repository
commit = repository.DocumentRepository.commit
def slow(self, *args, **kwargs):
    time.sleep(2.0)
    return commit(self, *args, **kwargs)
repository.DocumentRepository.commit = slow
sys.exit(main(["ingest", sys.argv[1]]))
"""


def cli(env, *args, timeout=900):
    return subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def race(env, tmp_path):
    """Ingest in one process while another starts up and sweeps every 200 ms; return (ingest, sweeper, check)."""
    stop = tmp_path / "stop"
    sweeper = subprocess.Popen([sys.executable, "-c", SWEEPER, str(stop)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert sweeper.stdout.readline().strip() == "ready", sweeper.stderr.read()[-2000:]
    # the real ingest command, with the moment between writing the vectors and committing them widened to 2 s, so
    # sweeps land inside it on every run (left to chance it lasts a fraction of a second, and a run could miss it)
    ingest = subprocess.run([sys.executable, "-c", SLOW_COMMIT, str(SAMPLE_PDF)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=900)
    stop.touch()
    out, err = sweeper.communicate(timeout=120)
    assert sweeper.returncode == 0, err[-2000:]
    return ingest, json.loads(out.strip().splitlines()[-1]), cli(env, "check")


def test_startup_sweeps_spare_an_ingest_in_flight_embedded(tmp_path):
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "home")}
    ingest, sweeps, checked = race(env, tmp_path)
    assert ingest.returncode == 0, ingest.stderr[-2000:]
    doc = json.loads(ingest.stdout)
    assert sweeps["sweeps"] >= 10 and doc["doc_id"] in sweeps["skipped"] and sweeps["removed"] == 0
    assert checked.returncode == 0, checked.stderr
    report = json.loads(checked.stdout)
    assert report == [{"doc_id": doc["doc_id"], "name": doc["name"], "chunks": doc["chunks"],
                       "vectors": doc["chunks"], "ok": True, "embedded_with": "all-MiniLM-L6-v2 (onnx-int8)",
                       "same_embedder_as_queries": True}]


def test_startup_sweeps_spare_an_ingest_in_flight_server_mode(tmp_path, chroma_server, pg_url):  # noqa: F811
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "home"), "NEPAQA_CHROMA_URL": chroma_server,
           "NEPAQA_DATABASE_URL": pg_url}
    ingest, sweeps, checked = race(env, tmp_path)
    assert ingest.returncode == 0, ingest.stderr[-2000:]
    doc = json.loads(ingest.stdout)
    assert doc["doc_id"] in sweeps["skipped"] and sweeps["removed"] == 0
    assert checked.returncode == 0 and json.loads(checked.stdout)[0]["vectors"] == doc["chunks"]


def test_the_same_new_file_ingested_twice_at_once(tmp_path):
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "home")}
    env["NEPAQA_DEBUG"] = "1"  # an unexpected error shows its traceback in the failure message
    procs = [subprocess.Popen([sys.executable, "-m", "lib", "ingest", str(SAMPLE_PDF)], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=900) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e[-1500:] for _, e in outs]
    results = [json.loads(o) for o, _ in outs]
    assert sorted(r["status"] for r in results) == ["already indexed", "indexed"]
    assert len({r["doc_id"] for r in results}) == 1
    docs = json.loads(cli(env, "check").stdout)
    assert len(docs) == 1 and docs[0]["ok"]


def test_two_reindexes_of_one_document_take_turns(services, tmp_path, pdf_factory):
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    docs = DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 'r.db'}"))
    path = pdf_factory("r.pdf", ["Groundwater wells will be monitored quarterly near the launch site. " * 60,
                                 "Air emissions from generators stay below permit limits. " * 60])
    doc = docs.ingest_file(str(path))
    errors = []

    def reindex(size: int) -> None:
        try:
            docs.reindex(doc.doc_id, size, 10)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=reindex, args=(s,)) for s in (64, 96)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    (entry,) = check(docs)
    assert entry.ok and entry.vectors == docs.get(doc.doc_id).chunks > 0
    assert index.count(doc.doc_id) == entry.vectors  # no second generation left behind


def test_a_dead_writers_lease_expires_at_once_and_a_stale_one_after_30_s(tmp_path):
    eng = get_engine(f"sqlite:///{tmp_path / 'l.db'}")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    now = time.time()
    with eng.begin() as c:
        c.execute(tables.leases.insert().values(name="doc:dead", holder="x", host=leases.HOST, pid=int(dead.stdout),
                                               purpose="killed", heartbeat_at=now, acquired_at=now))
        c.execute(tables.leases.insert().values(name="doc:far", holder="y", host="another-host", pid=1,
                                               purpose="other machine", heartbeat_at=now, acquired_at=now))
        c.execute(tables.leases.insert().values(name="doc:old", holder="z", host="another-host", pid=1,
                                               purpose="silent", heartbeat_at=now - 31, acquired_at=now - 60))
    assert leases.live("doc:", eng) == {"doc:far"}
    assert leases.Lease("doc:dead", eng).try_acquire()  # a resume right after kill -9 proceeds
    assert not leases.Lease("doc:far", eng).try_acquire()  # a live writer elsewhere is waited for
    assert leases.Lease("doc:old", eng).try_acquire()


def test_check_finds_missing_vectors_and_fix_restores_them(tmp_path, services, pdf_factory):
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    docs = DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 'c.db'}"))
    doc = docs.ingest_file(str(pdf_factory("c.pdf", ["Caribou calving grounds lie north of the pipeline. " * 40])))
    index.delete_doc(doc.doc_id)  # what the old start-up sweep did to an ingest in flight
    (entry,) = check(docs)
    assert entry.as_dict() == {"doc_id": doc.doc_id, "name": doc.name, "chunks": doc.chunks, "vectors": 0,
                               "ok": False, "embedded_with": "all-MiniLM-L6-v2 (onnx-int8)",
                               "same_embedder_as_queries": True}
    (fixed,) = check(docs, fix=True)
    assert fixed.ok and fixed.fixed and index.count(doc.doc_id) == doc.chunks
    assert repair(docs) == Repaired(removed=0, skipped_live=[])
    # a document indexed by an earlier version (name alone: torch) is named as such, for re-indexing
    with docs.engine.begin() as c:
        c.execute(tables.documents.update().values(embed_model="all-MiniLM-L6-v2"))
    (old,) = check(docs)
    assert old.embedded_with == "all-MiniLM-L6-v2 (torch)" and old.same_embedder_as_queries is False


def test_cli_check_exit_codes(tmp_path, pdf_factory):
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "home")}
    assert cli(env, "ingest", str(pdf_factory("e.pdf", ["Noise would stay below 65 dBA at the fence. " * 40]))).returncode == 0
    assert cli(env, "check").returncode == 0
    wipe = ("from lib.app.services import get_services; d = get_services().docs; "
            "[d.index.delete_doc(x.doc_id) for x in d.list()]")
    subprocess.run([sys.executable, "-c", wipe], cwd=ROOT, env=env, check=True, timeout=300)
    bad = cli(env, "check")
    assert bad.returncode == 1 and "lack vectors" in bad.stderr and json.loads(bad.stdout)[0]["ok"] is False
    fixed = cli(env, "check", "--fix")
    assert fixed.returncode == 0 and json.loads(fixed.stdout)[0]["fixed"] is True
    assert json.loads(cli(env, "repair").stdout) == {"removed": 0, "skipped_live": []}


@pytest.mark.parametrize("args", [["--chunk-size", "0"], ["--chunk-size", "8"], ["--chunk-overlap", "-1"]])
def test_ingest_refuses_bad_numbers(tmp_path, args):
    out = cli({**os.environ, "NEPAQA_HOME": str(tmp_path)}, "ingest", str(SAMPLE_PDF), *args)
    assert out.returncode == 2 and out.stderr.startswith("error: ") and not (tmp_path / "chroma").exists()


def test_processes_opening_a_new_store_at_once_all_get_it(tmp_path):
    """Two ingests started together on a fresh NEPAQA_HOME both create the tables; neither may fail on the other's
    "table already exists" (found by the twice-at-once test, one run in four)."""
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    go = tmp_path / "go"
    script = ("import sys, time, pathlib\n"
              "sys.path.insert(0, sys.argv[1])\n"
              "from lib.storage.engine import get_engine\n"
              "while not pathlib.Path(sys.argv[2]).exists(): time.sleep(0.001)\n"
              "get_engine(sys.argv[3])\n")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(ROOT), str(go), url], stderr=subprocess.PIPE,
                              text=True) for _ in range(8)]
    time.sleep(3)  # every process has imported and waits at the line
    go.touch()
    errs = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, [e[-600:] for e in errs if e]


def test_an_ingest_after_a_killed_one_removes_the_vectors_that_one_left(tmp_path, services, pdf_factory):
    """kill -9 in the index stage leaves vectors with no committed row; the next ingest of that file (a worker
    taking the job again) removes them, so the document has its chunks' vectors and no more."""
    import numpy as np

    from lib.documents.pdf import sha256_bytes

    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    docs = DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 'k.db'}"))
    path = pdf_factory("k.pdf", ["Wetland mitigation would restore 40 acres along the creek. " * 40])
    doc_id = sha256_bytes(path.read_bytes())[:12]
    left = [f"{doc_id}-1-{i}" for i in range(7)]  # what a killed writer's generation 1 wrote
    index.add(doc_id, left, ["half-written"] * 7, np.zeros((7, 384), dtype="float32"), [{"gen": 1, "idx": i}
                                                                                      for i in range(7)])
    doc = docs.ingest_file(str(path))
    assert doc.doc_id == doc_id and index.count(doc_id) == doc.chunks  # the killed writer's 7 are gone
    assert repair(docs) == Repaired(removed=0, skipped_live=[])
