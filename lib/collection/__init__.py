"""The collection: indexed documents as SQL rows (documents, pages, chunks), their vectors in Chroma and their
full-text index in SQL, written by one atomic ingest pipeline and checked and repaired by lease-aware
maintenance. ``DocumentStore`` is the one front the app holds."""
from lib.collection import lexical, volumes
from lib.collection.document_store import DocumentStore
from lib.collection.ingest import STAGES, IngestResult
from lib.collection.maintenance import check, repair, stale_vectors
from lib.collection.repository import DocInfo
from lib.collection.vectors import VectorIndex, get_index, make_client

__all__ = ["STAGES", "DocInfo", "DocumentStore", "IngestResult", "VectorIndex", "check", "get_index", "lexical",
           "make_client", "repair", "stale_vectors", "volumes"]
