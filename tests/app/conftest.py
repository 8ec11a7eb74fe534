"""Fixtures of the use-case tests: a small collection of two documents with their metadata."""
import pytest

from lib.app.services import Services
from lib.collection.document_store import DocumentStore
from lib.collection.vectors import VectorIndex, make_client
from lib.documents import metadata
from lib.retrieval.retriever import Retriever
from lib.storage.engine import get_engine

CARIBOU = ["The Porcupine caribou herd calves on the coastal plain each June. Calving grounds would be avoided by "
           "seasonal restrictions on drilling. " * 12]
WETLAND = ["Wetland delineation found two wetlands near the access road at Fort Drum. Mitigation would replace "
           "lost wetlands at a two-to-one ratio. " * 12]


@pytest.fixture
def corpus(tmp_path, services, pdf_factory):
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    docs = DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 'c.db'}"))
    a = docs.ingest_file(str(pdf_factory("caribou.pdf", CARIBOU)), name="caribou.pdf")
    b = docs.ingest_file(str(pdf_factory("wetland.pdf", WETLAND)), name="wetland.pdf")
    metadata.set_values(a.doc_id, {"title": "Arctic Refuge Leasing Program Final EIS", "states": "AK",
                                   "lead_agency": "Bureau of Land Management", "document_type": "Final EIS",
                                   "publish_date": "2019-09", "tags": "caribou"}, docs.engine)
    metadata.set_values(b.doc_id, {"title": "", "states": "NY", "lead_agency": "U.S. Army",
                                   "document_type": "Draft EIS", "publish_date": "2012"}, docs.engine)
    return Services(docs=docs, retriever=Retriever(docs)), a.doc_id, b.doc_id
