"""The documents' SQL repository: document rows, page text and chunks (SQLite or PostgreSQL), read and written.

It knows nothing of PDFs, embeddings or vectors: the ingest pipeline (ingest.py) decides what to write,
the vector index (vectors.py) holds the vectors, and maintenance (maintenance.py) checks the two agree.
"""
from __future__ import annotations

import builtins  # the class's own list() method hides the builtin in its annotations
import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Engine

from lib.collection import lexical
from lib.core.errors import UserError
from lib.documents import metadata
from lib.documents.chunking import Chunk, is_navigation
from lib.documents.pdf import ExtractedPdf, Page
from lib.storage import tables
from lib.storage.engine import get_engine


@dataclass
class DocInfo:
    doc_id: str
    name: str
    pages: int
    chunks: int
    chars: int
    tokens: int
    empty_pages: list[int]
    chunk_size: int
    chunk_overlap: int
    gen: int
    seconds: float
    embed_model: str = ""  # what made its vectors: "all-MiniLM-L6-v2 (onnx-int8)"; older rows: the name alone (torch)
    ocr_pages: list[int] = field(default_factory=list)  # pages whose text was read by OCR
    ocr_failed: dict[int, str] = field(default_factory=dict)  # scanned pages OCR could not read, and why
    ocr_missing: list[int] = field(default_factory=list)  # scanned pages left unread: Tesseract was not installed

    @property
    def made_with(self) -> str:
        """What made its vectors, as ``ingest.embedder_label`` says it; rows written before the backend was recorded
        name the model alone, and were made on torch."""
        return self.embed_model if self.embed_model.endswith(")") else f"{self.embed_model} (torch)"


class DocumentRepository:
    """Reads and writes the documents, pages and chunks tables (and, in the same transactions, the lexical index
    and the metadata)."""

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine or get_engine()

    def list(self) -> list[DocInfo]:
        with self.engine.connect() as c:
            rows = c.execute(select(tables.documents).order_by(tables.documents.c.created_at)).fetchall()
        return [info_of(r) for r in rows]

    def get(self, doc_id: str) -> DocInfo:
        r = self.row(doc_id)
        if r is None:
            known = ", ".join(d.doc_id for d in self.list()) or "none yet"
            raise UserError(f"No indexed document with id '{doc_id}'. Known ids: {known}.")
        return info_of(r)

    def row(self, doc_id: str) -> Any:
        with self.engine.connect() as c:
            return c.execute(select(tables.documents).where(tables.documents.c.doc_id == doc_id)).first()

    def by_sha(self, sha256: str) -> Any:
        with self.engine.connect() as c:
            return c.execute(select(tables.documents).where(tables.documents.c.sha256 == sha256)).first()

    def find(self, name_or_id: str) -> DocInfo | None:
        """A document by id, by name, by file name without '.pdf', or by its title (case-insensitive)."""
        key = name_or_id.strip().lower().removesuffix(".pdf")
        listed = self.list()
        for d in listed:
            if key in (d.doc_id.lower(), d.name.lower(), d.name.lower().removesuffix(".pdf")):
                return d

        metas = metadata.get_many([d.doc_id for d in listed], self.engine)
        for d in listed:
            title = metadata.value_of(metas[d.doc_id], "title")
            if title and " ".join(str(title).split()).lower() == " ".join(key.split()):
                return d
        return None

    def chunks(self, doc_id: str) -> builtins.list[Chunk]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(tables.chunks).where(tables.chunks.c.doc_id == doc_id).order_by(tables.chunks.c.idx)
            ).fetchall()
        return [
            Chunk(r.idx, r.text, r.page_start, r.page_end, r.char_start, r.char_end, r.n_tokens, r.section or "")
            for r in rows
        ]

    def pages(self, doc_id: str) -> builtins.list[Page]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(tables.pages).where(tables.pages.c.doc_id == doc_id).order_by(tables.pages.c.number)
            ).fetchall()
        return [Page(r.number, r.text) for r in rows]

    def commit(
        self, ex: ExtractedPdf, doc_id: str, gen: int, chunks: builtins.list[Chunk], size: int, overlap: int,
        n_tokens: int, is_new: bool, seconds: float, embed_model: str,
    ) -> None:
        """Switch a document to generation ``gen``: its row, pages (when new), chunks, lexical index and the
        metadata the rules read (a person's values kept), in one transaction."""
        row = {
            "name": ex.name, "status": f"ready:{gen}", "n_bytes": ex.n_bytes, "n_pages": ex.n_pages,
            "n_chars": ex.n_chars, "n_tokens": n_tokens, "n_chunks": len(chunks),
            "empty_pages": json.dumps(ex.empty_pages), "chunk_size": size, "chunk_overlap": overlap,
            "embed_model": embed_model, "seconds": round(seconds, 3),
            "ocr": json.dumps({"read": ex.ocr_pages, "failed": {str(k): v for k, v in ex.ocr_failed.items()},
                               "missing": ex.ocr_missing}),
        }
        with self.engine.begin() as c:
            if is_new:
                c.execute(insert(tables.documents).values(doc_id=doc_id, sha256=ex.sha256, **row))
                c.execute(insert(tables.pages), [{"doc_id": doc_id, "number": p.number, "text": p.text} for p in ex.pages])
            else:
                c.execute(update(tables.documents).where(tables.documents.c.doc_id == doc_id).values(**row))
                c.execute(delete(tables.chunks).where(tables.chunks.c.doc_id == doc_id))
                if ex.ocr_pages:  # a re-index may have read scans that were left unread: the pages' text as read now
                    c.execute(delete(tables.pages).where(tables.pages.c.doc_id == doc_id))
                    c.execute(insert(tables.pages),
                              [{"doc_id": doc_id, "number": p.number, "text": p.text} for p in ex.pages])
            if chunks:
                c.execute(insert(tables.chunks), [
                    {"doc_id": doc_id, "idx": ch.index, "text": ch.text, "page_start": ch.page_start,
                     "page_end": ch.page_end, "char_start": ch.char_start, "char_end": ch.char_end,
                     "n_tokens": ch.n_tokens, "section": ch.section or None,
                     "navigation": int(is_navigation(ch.text))}
                    for ch in chunks
                ])
            # The lexical index and the metadata switch in the same transaction as the chunks.
            lexical.write(c, doc_id, chunks, None)  # the lexical index keeps the bare text (see ingest.CONTEXTUAL)
            # read again on every re-index (the rules may have improved; a person's values are kept), but only
            # from what the PDF itself gives: a document whose original was not kept has lost its properties and
            # layout, and reading its bare text again would drop values read from them
            fields = metadata.read_or_none(ex) if is_new or ex.pdf_metadata or ex.layout else None
            if fields is not None:
                metadata.save_extracted(c, doc_id, fields)
        lexical.remember(self.engine, doc_id, gen, chunks)  # this process ranks it without reading it back

    def set_generation(self, doc_id: str, gen: int, embed_model: str | None = None) -> None:
        """Switch a document to a generation of its vectors (and record what made them, when that changed)."""
        values = {"status": f"ready:{gen}"} | ({"embed_model": embed_model} if embed_model else {})
        with self.engine.begin() as c:
            c.execute(update(tables.documents).where(tables.documents.c.doc_id == doc_id).values(**values))

    def delete(self, doc_id: str) -> None:
        """Every row of a document (chunks, pages, lexical index, metadata, its place among an EIS's volumes, the
        document) in one transaction; the other volumes of its EIS stay, numbered as they were."""
        with self.engine.begin() as c:
            c.execute(delete(tables.eis_volumes).where(tables.eis_volumes.c.doc_id == doc_id))
            c.execute(delete(tables.chunks).where(tables.chunks.c.doc_id == doc_id))
            c.execute(delete(tables.pages).where(tables.pages.c.doc_id == doc_id))
            c.execute(delete(tables.documents).where(tables.documents.c.doc_id == doc_id))
            lexical.delete(c, doc_id)
            metadata.delete(c, doc_id)


def info_of(r: Any) -> DocInfo:
    status = r.status
    gen = int(status.split(":", 1)[1]) if ":" in status else 0
    return DocInfo(
        doc_id=r.doc_id, name=r.name, pages=r.n_pages, chunks=r.n_chunks, chars=r.n_chars, tokens=r.n_tokens,
        empty_pages=json.loads(r.empty_pages or "[]"), chunk_size=r.chunk_size, chunk_overlap=r.chunk_overlap,
        gen=gen, seconds=r.seconds, embed_model=r.embed_model or "", **_ocr_of(r.ocr),
    )


def _ocr_of(stored: str | None) -> dict[str, Any]:
    """The OCR record of a document row (rows from before OCR, or unreadable JSON: nothing read by OCR)."""
    try:
        o = json.loads(stored or "{}")
        return {"ocr_pages": [int(n) for n in o.get("read", [])],
                "ocr_failed": {int(k): str(v) for k, v in (o.get("failed") or {}).items()},
                "ocr_missing": [int(n) for n in o.get("missing", [])]}
    except (ValueError, TypeError, AttributeError):
        return {}
