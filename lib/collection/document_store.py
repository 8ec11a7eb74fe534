"""The document store: one front over the four parts of the collection that each do one job.

- ``repository.DocumentRepository``: the SQL rows (documents, pages, chunks; lexical index and metadata in the
  same transactions);
- ``ingest.IngestPipeline``: PDF → chunks → embeddings → a committed generation, atomically;
- ``vectors.VectorIndex``: the vectors (Chroma), with lease-held writes;
- ``maintenance``: the lease-aware sweep and the vectors-match-chunks check.

``DocumentStore`` only composes them, so pages and the CLI keep one object to hold (``services().docs``).
"""
from __future__ import annotations

import builtins  # the class's own list() method hides the builtin in its annotations
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Engine

from lib.collection.ingest import STAGES, IngestPipeline, IngestResult, document_title, embed_text
from lib.collection.maintenance import Repaired, repair
from lib.collection.repository import DocInfo, DocumentRepository
from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.core.progress import ProgressFn
from lib.documents import metadata, originals
from lib.storage import leases
from lib.storage.audit import guarded

if TYPE_CHECKING:
    from lib.collection.vectors import VectorIndex
    from lib.documents.chunking import Chunk
    from lib.documents.pdf import Page

__all__ = ["STAGES", "DocInfo", "DocumentStore", "IngestResult", "document_title", "embed_text"]


class DocumentStore:
    """The documents: read through the repository, written through the ingest pipeline."""

    def __init__(self, index: VectorIndex, engine: Engine | None = None) -> None:
        self.index = index
        self.repo = DocumentRepository(engine)
        self.engine = self.repo.engine
        self.pipeline = IngestPipeline(self.repo, index)
        # No sweep here: another process may be writing right now. Maintenance is explicit and lease-aware
        # (maintenance.repair: `python -m lib repair`, and once when the app starts).

    # reading
    def list(self) -> list[DocInfo]:
        return self.repo.list()

    def get(self, doc_id: str) -> DocInfo:
        return self.repo.get(doc_id)

    def find(self, name_or_id: str) -> DocInfo | None:
        return self.repo.find(name_or_id)

    def chunks(self, doc_id: str) -> builtins.list[Chunk]:
        return self.repo.chunks(doc_id)

    def pages(self, doc_id: str) -> builtins.list[Page]:
        return self.repo.pages(doc_id)

    # writing
    def ingest_file(self, path: str, name: str | None = None, chunk_size: int | None = None,
                    chunk_overlap: int | None = None, progress: ProgressFn | None = None,
                    file_name: str | None = None) -> IngestResult:
        """Index a PDF: when this returns, the document is searchable at its final quality (``file_name``: the
        file as the user named it, for messages)."""
        authorize(Action.UPLOAD, file_name or name or "")  # recorded where the upload starts (its job)
        return self.pipeline.ingest_file(path, name, chunk_size, chunk_overlap, progress, file_name)

    def reindex(self, doc_id: str, chunk_size: int, chunk_overlap: int, progress: ProgressFn | None = None) -> IngestResult:
        authorize(Action.UPLOAD, doc_id)
        return self.pipeline.reindex(doc_id, chunk_size, chunk_overlap, progress)

    def stored_pdf(self, doc_id: str) -> Any:
        """The document as read at ingest (pages, PDF properties, first pages' layout): what metadata is read from."""
        return self.pipeline.stored_pdf(doc_id)

    def reextract_metadata(self, doc_id: str) -> metadata.Metadata:
        """Read a document's metadata again with today's rules (from its kept original's properties and layout, or
        its stored text), keeping a person's values and noting where the rules now read otherwise."""
        authorize(Action.EDIT_METADATA, doc_id)
        if originals.path(doc_id) is None:
            raise UserError("This document's original PDF was not kept (it was indexed before originals were), so "
                            "its properties and title page cannot be read again. Upload the same PDF again to keep "
                            "it; the index is not changed.")
        ex = self.pipeline.stored_pdf(doc_id)
        fields = metadata.read_or_none(ex)
        if fields is None:
            raise UserError("The metadata rules failed on this document; nothing was changed (the server log has "
                            "the details).")
        with leases.held(f"doc:{doc_id}", self.engine, "reading metadata"), self.engine.begin() as c:
            metadata.save_extracted(c, doc_id, fields)
        return metadata.get(doc_id, self.engine)

    def delete(self, doc_id: str) -> None:
        authorize(Action.DELETE, f"document {doc_id}")  # a refusal is recorded (audit's hook)
        doc = self.repo.get(doc_id)  # raises UserError for an unknown id
        with guarded(Action.DELETE, f"document {doc.name} ({doc_id})", engine=self.engine), \
                leases.held(f"doc:{doc_id}", self.engine, "deleting"):
            self.repo.delete(doc_id)
            originals.delete(doc_id)
            with self.index.writing(self.engine):
                self.index.delete_doc(doc_id)

    # maintenance
    def vector_writes(self) -> Any:
        return self.index.writing(self.engine)

    def repair(self) -> Repaired:
        """Lease-aware sweep of vectors no committed generation owns (see maintenance.repair)."""
        with guarded(Action.SETTINGS, "repair the index", engine=self.engine):
            return repair(self)
