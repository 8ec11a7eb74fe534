"""The path past one machine: a real `chroma run` server on 127.0.0.1, indexed and queried over HTTP."""
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lib.collection.document_store import DocumentStore
from lib.collection.vectors import VectorIndex, make_client
from lib.retrieval.retriever import Retriever
from lib.storage.engine import get_engine

pytestmark = pytest.mark.slow  # left out by `bash .ci/run --fast`


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    exe = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    port = free_port()
    proc = subprocess.Popen([exe, "run", "--path", str(tmp_path / "srv"), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            make_client(url).heartbeat()
            break
        except Exception:  # noqa: BLE001 - not up yet
            if proc.poll() is not None:
                raise RuntimeError("chroma server exited") from None
            time.sleep(0.5)
    else:
        proc.kill()
        raise RuntimeError("chroma server did not start in 60 s")
    yield url
    proc.terminate()
    proc.wait(timeout=20)


def test_index_and_query_through_chroma_server(chroma_server, services, tmp_path, pdf_factory):
    client = make_client(chroma_server)
    assert type(client).__name__ != "PersistentClient"
    index = VectorIndex(client, services.docs.index.embedder)
    docs = DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 'db.sqlite'}"))
    path = pdf_factory("srv.pdf", ["Groundwater wells will be monitored quarterly near the launch site. " * 20,
                                   "Air emissions from generators stay below permit limits. " * 20])
    res = docs.ingest_file(str(path))
    assert index.count(res.doc_id) == res.chunks > 0
    hits = Retriever(docs).search(res.doc_id, "generator air emissions permit", k=1, method="dense")
    assert hits and "emissions" in hits[0].chunk.text
    docs.delete(res.doc_id)
    assert index.count(res.doc_id) == 0
