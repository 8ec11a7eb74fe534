"""Documents: ingest (extract → chunk → embed → index), list, read back and delete.

Ingest is idempotent (a file is known by its sha256) and atomic: vectors are written under a new
generation number and the document only switches to it in one database transaction at the end. A
failure or interrupt removes what it wrote; a hard kill leaves vectors that ``maintenance.repair`` sweeps away
once the writer's lease has expired. Writes to one document hold its lease (leases.py), so two writers of one
document take turns and no sweep touches a document being written.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Engine

from . import config, leases, lexical, store
from .chunking import Chunk, assign_sections, chunk_pages
from .errors import UserError
from .pdf import ExtractedPdf, Page, extract_pdf, read_pdf_file
from .vector_ids import chunk_id

if TYPE_CHECKING:
    from .index import VectorIndex

ProgressFn = Callable[[str, float, str], None]  # (stage, fraction 0..1, message)
STAGES = ("extract", "chunk", "embed", "index")
MIN_CHUNK_TOKENS = 16


def _noop(stage: str, frac: float, msg: str) -> None:
    return None


@dataclass
class IngestResult:
    doc_id: str
    name: str
    pages: int
    chunks: int
    empty_pages: list[int]
    seconds: float
    chars: int = 0
    tokens: int = 0
    skipped: bool = False
    stage_seconds: dict[str, float] = field(default_factory=dict)

    def cli_dict(self) -> dict[str, Any]:
        keys = ("doc_id", "name", "pages", "chunks", "empty_pages", "seconds")
        return {k: asdict(self)[k] for k in keys} | {"status": "already indexed" if self.skipped else "indexed"}


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


class DocumentStore:
    """Documents across the SQL store (metadata, page text, chunks) and the vector index."""

    def __init__(self, index: VectorIndex, engine: Engine | None = None) -> None:
        self.index = index
        self.engine = engine or store.get_engine()
        # No sweep here: another process may be writing right now. Maintenance is explicit and lease-aware
        # (maintenance.repair: `python -m lib repair`, and once when the app starts).

    # ----- reading -------------------------------------------------------------------------
    def list(self) -> list[DocInfo]:
        with self.engine.connect() as c:
            rows = c.execute(select(store.documents).order_by(store.documents.c.created_at)).fetchall()
        return [self._info(r) for r in rows]

    def get(self, doc_id: str) -> DocInfo:
        with self.engine.connect() as c:
            r = c.execute(select(store.documents).where(store.documents.c.doc_id == doc_id)).first()
        if r is None:
            known = ", ".join(d.doc_id for d in self.list()) or "none yet"
            raise UserError(f"No indexed document with id '{doc_id}'. Known ids: {known}.")
        return self._info(r)

    def find(self, name_or_id: str) -> DocInfo | None:
        """A document by id, by name, by file name without '.pdf', or by its title (case-insensitive)."""
        key = name_or_id.strip().lower().removesuffix(".pdf")
        listed = self.list()
        for d in listed:
            if key in (d.doc_id.lower(), d.name.lower(), d.name.lower().removesuffix(".pdf")):
                return d
        from . import metadata

        metas = metadata.get_many([d.doc_id for d in listed], self.engine)
        for d in listed:
            title = (metas[d.doc_id].get("title") or {}).get("value")
            if title and " ".join(str(title).split()).lower() == " ".join(key.split()):
                return d
        return None

    @staticmethod
    def _info(r: Any) -> DocInfo:
        status = r.status
        gen = int(status.split(":", 1)[1]) if ":" in status else 0
        return DocInfo(
            doc_id=r.doc_id,
            name=r.name,
            pages=r.n_pages,
            chunks=r.n_chunks,
            chars=r.n_chars,
            tokens=r.n_tokens,
            empty_pages=json.loads(r.empty_pages or "[]"),
            chunk_size=r.chunk_size,
            chunk_overlap=r.chunk_overlap,
            gen=gen,
            seconds=r.seconds,
        )

    def chunks(self, doc_id: str) -> list[Chunk]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(store.chunks).where(store.chunks.c.doc_id == doc_id).order_by(store.chunks.c.idx)
            ).fetchall()
        return [
            Chunk(r.idx, r.text, r.page_start, r.page_end, r.char_start, r.char_end, r.n_tokens, r.section or "")
            for r in rows
        ]

    def pages(self, doc_id: str) -> list[Page]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(store.pages).where(store.pages.c.doc_id == doc_id).order_by(store.pages.c.number)
            ).fetchall()
        return [Page(r.number, r.text) for r in rows]

    # ----- writing -------------------------------------------------------------------------
    def ingest_file(self, path: str, name: str | None = None, **kw: Any) -> IngestResult:
        started = time.perf_counter()
        extracted = read_pdf_file(path, config.max_upload_bytes(), name)
        return self.ingest_extracted(extracted, started, **kw)

    def ingest_bytes(self, data: bytes, name: str, **kw: Any) -> IngestResult:
        started = time.perf_counter()
        progress: ProgressFn = kw.get("progress") or _noop
        progress("extract", 0.0, "reading PDF")
        extracted = extract_pdf(data, name, config.max_upload_bytes())
        return self.ingest_extracted(extracted, started, **kw)

    def reindex(self, doc_id: str, chunk_size: int, chunk_overlap: int, progress: ProgressFn | None = None) -> IngestResult:
        info = self.get(doc_id)
        with self.engine.connect() as c:
            r = c.execute(select(store.documents).where(store.documents.c.doc_id == doc_id)).one()
        pages = self.pages(doc_id)
        meta, toc = _kept_info_and_outline(doc_id)  # sections and PDF metadata survive a re-index
        extracted = ExtractedPdf(info.name, r.sha256, r.n_bytes, pages, info.empty_pages, pdf_metadata=meta, toc=toc)
        return self.ingest_extracted(
            extracted, time.perf_counter(), chunk_size=chunk_size, chunk_overlap=chunk_overlap, progress=progress
        )

    def ingest_extracted(
        self,
        ex: ExtractedPdf,
        started: float,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
        progress: ProgressFn | None = None,
    ) -> IngestResult:
        progress = progress or _noop
        chunk_size = int(chunk_size if chunk_size is not None else (config.get("NEPAQA_CHUNK_SIZE") or 200))
        chunk_overlap = int(chunk_overlap if chunk_overlap is not None else (config.get("NEPAQA_CHUNK_OVERLAP") or 40))
        if chunk_size < MIN_CHUNK_TOKENS:
            raise UserError(f"Chunk size must be at least {MIN_CHUNK_TOKENS} tokens (got {chunk_size}).")
        if not 0 <= chunk_overlap < chunk_size:
            raise UserError(f"Chunk overlap must be at least 0 and smaller than the chunk size ({chunk_size}); "
                            f"got {chunk_overlap}.")
        doc_id = ex.sha256[:12]
        stage_s: dict[str, float] = {"extract": time.perf_counter() - started}
        progress("extract", 1.0, f"{ex.n_pages} pages, {ex.n_chars:,} characters")

        def waiting(holder: str | None) -> None:
            progress("embed", 0.0, f"waiting: this document is being written by {holder or 'another process'}")

        # Writes to one document serialise through a lease in the SQL store; a second ingest of the same file
        # waits here, then finds it indexed.
        with leases.held(f"doc:{doc_id}", self.engine, f"indexing {ex.name}", on_wait=waiting):
            return self._ingest_locked(ex, started, doc_id, chunk_size, chunk_overlap, progress, stage_s)

    def _ingest_locked(self, ex: ExtractedPdf, started: float, doc_id: str, chunk_size: int, chunk_overlap: int,
                       progress: ProgressFn, stage_s: dict[str, float]) -> IngestResult:
        emb = self.index.embedder
        with self.engine.connect() as c:
            prev = c.execute(select(store.documents).where(store.documents.c.sha256 == ex.sha256)).first()
        if prev is not None:
            info = self._info(prev)
            if (info.chunk_size, info.chunk_overlap) == (chunk_size, chunk_overlap):
                for stage in STAGES[1:]:
                    progress(stage, 1.0, "already indexed")
                if ex.data is not None:
                    from . import originals

                    if originals.path(doc_id) is None:  # indexed before originals were kept: keep it now
                        _save_original(doc_id, ex.data)
                return IngestResult(
                    info.doc_id, info.name, info.pages, info.chunks, info.empty_pages,
                    round(time.perf_counter() - started, 3), info.chars, info.tokens, skipped=True,
                )

        t = time.perf_counter()
        progress("chunk", 0.0, "splitting into chunks")
        chunks = assign_sections(chunk_pages(ex.pages, emb.count_tokens, chunk_size, chunk_overlap, emb.max_tokens),
                                 ex.toc, ex.pages)
        title = document_title(ex)
        n_tokens = sum(len(ids) for ids in emb.tokenizer([p.text for p in ex.pages], add_special_tokens=False)["input_ids"])
        stage_s["chunk"] = time.perf_counter() - t
        progress("chunk", 1.0, f"{len(chunks)} chunks of up to {chunk_size} tokens")

        t = time.perf_counter()
        vectors = emb.embed([embed_text(c, title) for c in chunks], progress=lambda f, m: progress("embed", f, m))
        stage_s["embed"] = time.perf_counter() - t

        t = time.perf_counter()
        gen = time.time_ns()
        progress("index", 0.0, "writing to the index")
        ids = [chunk_id(doc_id, gen, c.index) for c in chunks]
        metas = [{"gen": gen, "idx": c.index, "page_start": c.page_start, "page_end": c.page_end} for c in chunks]
        try:
            with self.vector_writes():
                self.index.add(doc_id, ids, [c.text for c in chunks], vectors, metas)
            self._commit(ex, doc_id, gen, chunks, chunk_size, chunk_overlap, n_tokens, prev is None,
                         time.perf_counter() - started, title)
        except BaseException:
            # Interrupt or failure: take back this generation's vectors; the old generation (if any) stays live.
            with self.vector_writes():
                self.index.collection.delete(where={"$and": [{"doc_id": doc_id}, {"gen": gen}]})
            raise
        if prev is not None:
            with self.vector_writes():
                self.index.collection.delete(where={"$and": [{"doc_id": doc_id}, {"gen": {"$ne": gen}}]})
        if ex.data:
            _save_original(doc_id, ex.data)  # for citations that open the page
        stage_s["index"] = time.perf_counter() - t
        progress("index", 1.0, f"{len(chunks)} chunks indexed")
        seconds = round(time.perf_counter() - started, 3)
        return IngestResult(
            doc_id, ex.name, ex.n_pages, len(chunks), ex.empty_pages, seconds, ex.n_chars, n_tokens,
            stage_seconds={k: round(v, 3) for k, v in stage_s.items()},
        )

    def _commit(
        self, ex: ExtractedPdf, doc_id: str, gen: int, chunks: list[Chunk], size: int, overlap: int,
        n_tokens: int, is_new: bool, seconds: float, title: str = "",
    ) -> None:
        row = {
            "name": ex.name, "status": f"ready:{gen}", "n_bytes": ex.n_bytes, "n_pages": ex.n_pages,
            "n_chars": ex.n_chars, "n_tokens": n_tokens, "n_chunks": len(chunks),
            "empty_pages": json.dumps(ex.empty_pages), "chunk_size": size, "chunk_overlap": overlap,
            "embed_model": self.index.embedder.name, "seconds": round(seconds, 3),
        }
        with self.engine.begin() as c:
            if is_new:
                c.execute(insert(store.documents).values(doc_id=doc_id, sha256=ex.sha256, **row))
                c.execute(insert(store.pages), [{"doc_id": doc_id, "number": p.number, "text": p.text} for p in ex.pages])
            else:
                c.execute(update(store.documents).where(store.documents.c.doc_id == doc_id).values(**row))
                c.execute(delete(store.chunks).where(store.chunks.c.doc_id == doc_id))
            if chunks:
                c.execute(insert(store.chunks), [
                    {"doc_id": doc_id, "idx": ch.index, "text": ch.text, "page_start": ch.page_start,
                     "page_end": ch.page_end, "char_start": ch.char_start, "char_end": ch.char_end,
                     "n_tokens": ch.n_tokens, "section": ch.section or None}
                    for ch in chunks
                ])
            # The lexical index and the metadata switch in the same transaction as the chunks.
            lexical.write(c, doc_id, chunks, None)  # the lexical index keeps the bare text (measured: see below)
            if is_new:
                _save_metadata(c, doc_id, ex)

    def delete(self, doc_id: str) -> None:
        self.get(doc_id)  # raises UserError for an unknown id
        with leases.held(f"doc:{doc_id}", self.engine, "deleting"):
            with self.engine.begin() as c:
                c.execute(delete(store.chunks).where(store.chunks.c.doc_id == doc_id))
                c.execute(delete(store.pages).where(store.pages.c.doc_id == doc_id))
                c.execute(delete(store.documents).where(store.documents.c.doc_id == doc_id))
                lexical.delete(c, doc_id)
                _delete_metadata(c, doc_id)
            _delete_original(doc_id)
            with self.vector_writes():
                self.index.delete_doc(doc_id)

    @contextmanager
    def vector_writes(self) -> Iterator[None]:
        """Chroma's embedded client is not made for several processes writing one path: there, every vector
        write holds the one ``vector-writer`` lease, so writes from several processes take turns. A Chroma
        server serialises writes itself."""
        if self.index.embedded:
            with leases.held("vector-writer", self.engine, "writing vectors"):
                yield
        else:
            yield

    def repair(self) -> dict[str, Any]:
        """Lease-aware sweep of vectors no committed generation owns (see maintenance.repair)."""
        from .maintenance import repair

        return repair(self)


def document_title(ex: ExtractedPdf) -> str:
    """The title chunks are indexed under: the PDF's own title where it has one, else the file name."""
    title = " ".join(str(ex.pdf_metadata.get("title") or "").split())
    return title if len(title) >= 8 else ex.name


def embed_text(chunk: Chunk, title: str) -> str:
    """What the embedder sees: the chunk with its title and section path in front when CONTEXTUAL is on."""
    return lexical.context_text(chunk, title) if CONTEXTUAL else chunk.text


# Contextual chunk text (title and section path in front) was measured in bench/retrieval.py on the sample: for
# the lexical index it loses (hit@3 0.903 → 0.865), for the embedder alone it helps dense (0.664 → 0.690) but the
# hybrid default then loses a little (hit@3 0.877 → 0.871, hit@5 0.948 → 0.935). The rule was to keep it only if
# it loses nowhere, so it is off; sections are still stored and shown in citations.
CONTEXTUAL = False


def _save_metadata(conn: Any, doc_id: str, ex: ExtractedPdf) -> None:
    from . import metadata

    metadata.save_extracted(conn, doc_id, metadata.extract(ex))


def _kept_info_and_outline(doc_id: str) -> tuple[dict, list]:
    """The PDF metadata and outline of a document's kept original; empty when none was kept."""
    from . import originals
    from .pdf import info_and_outline

    kept = originals.path(doc_id)
    if kept is None:
        return {}, []
    import pymupdf

    try:
        with pymupdf.open(kept) as doc:
            return info_and_outline(doc)
    except Exception:  # a damaged kept copy: re-index from the stored text without them
        return {}, []


def _delete_metadata(conn: Any, doc_id: str) -> None:
    from . import metadata

    metadata.delete(conn, doc_id)


def _delete_original(doc_id: str) -> None:
    from . import originals

    originals.delete(doc_id)


def _save_original(doc_id: str, data: bytes) -> None:
    from . import originals

    originals.save(doc_id, data)
