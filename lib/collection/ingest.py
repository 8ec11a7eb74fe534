"""The ingest pipeline: PDF → page text → chunks (with sections) → embeddings → vectors + SQL, atomically.

Ingest is idempotent (a file is known by its sha256) and atomic: vectors are written under a new generation
number and the document only switches to it in one database transaction at the end (the repository's commit).
A failure or interrupt removes what it wrote; a hard kill leaves vectors that ``maintenance.repair`` sweeps away
once the writer's lease has expired. Writes to one document hold its lease (leases.py), so two writers of one
document take turns and no sweep touches a document being written.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lib.collection import lexical
from lib.collection.repository import DocumentRepository, info_of
from lib.collection.vector_ids import chunk_id
from lib.core import config
from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.core.progress import ProgressFn
from lib.documents import ocr, originals, tables
from lib.documents.chunking import Chunk, assign_sections, chunk_pages, join_pages
from lib.documents.pdf import (
    ExtractedPdf,
    LayoutLine,
    check_pdf_path,
    extract_pdf,
    first_pages_layout,
    info_and_outline,
    read_scans,
)
from lib.storage import leases
from lib.storage.audit import record

if TYPE_CHECKING:
    from lib.collection.vectors import VectorIndex
    from lib.models.embedding import Embedder

STAGES = ("extract", "chunk", "embed", "index")
MIN_CHUNK_TOKENS = 16

# Contextual chunk text (title and section path in front) was measured in bench/retrieval.py on the sample: for
# the lexical index it loses (hit@3 0.903 → 0.865), for the embedder alone it helps dense (0.664 → 0.690) but the
# hybrid default then loses a little (hit@3 0.877 → 0.871, hit@5 0.948 → 0.935). The rule was to keep it only if
# it loses nowhere, so it is off; sections are still stored and shown in citations.
CONTEXTUAL = False


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
    ocr_pages: list[int] = field(default_factory=list)  # pages read by OCR
    ocr_failed: dict[int, str] = field(default_factory=dict)  # scanned pages OCR could not read, and why
    ocr_missing: list[int] = field(default_factory=list)  # scanned pages left unread: Tesseract is not installed

    def cli_dict(self) -> JSONObject:
        keys = ("doc_id", "name", "pages", "chunks", "empty_pages", "seconds", "ocr_pages", "ocr_missing")
        return ({k: asdict(self)[k] for k in keys} | {"ocr_failed": {str(k): v for k, v in self.ocr_failed.items()}}
                | {"status": "already indexed" if self.skipped else "indexed"})


class IngestPipeline:
    """Turns a PDF into a committed document generation: chunks and vectors written, then switched to at once."""

    def __init__(self, repo: DocumentRepository, index: VectorIndex) -> None:
        self.repo, self.index = repo, index

    def ingest_file(self, path: str, name: str | None = None, chunk_size: int | None = None,
                    chunk_overlap: int | None = None, progress: ProgressFn | None = None,
                    file_name: str | None = None) -> IngestResult:
        """The one operation that indexes a document: read the PDF, chunk, embed, and commit. When it returns,
        the document is searchable as it will stay (its vectors are final: no later pass changes them).
        ``file_name``: the file as the user named it, for messages (an upload is kept under a name of ours)."""
        authorize(Action.UPLOAD, file_name or name or path)
        started = time.perf_counter()
        progress = progress or _noop
        progress("extract", 0.0, "reading PDF")
        size, overlap = _settings(chunk_size, chunk_overlap)
        # never whole in memory, and one content throughout: the file is copied into the originals folder a
        # megabyte at a time (hashed on the way), PyMuPDF reads that copy, and the commit renames it into place
        given = Path(path)
        file_name = file_name or (given.name if name in (None, given.stem) else name)
        p = check_pdf_path(path, config.max_upload_bytes(), file_name).resolve()
        copy, sha = originals.private_copy(p)
        try:
            prev = self.repo.by_sha(sha)
            done = self._done(prev, size, overlap, copy, started, progress) if prev is not None else None
            if done is not None:  # known before reading a page: a scanned PDF is not read by OCR twice
                return done
            if prev is not None and _has_scans(prev):  # the same file with scans, under other settings: from its
                if originals.path(prev.doc_id) is None:  # stored pages (scans OCR read are not read again)
                    originals.save(prev.doc_id, copy, move=True)
                ex = self.stored_pdf(prev.doc_id, for_index=True)
                ex.name = name or p.stem
                return _uploaded(self._ingest(ex, started, size, overlap, progress), file_name)
            extracted = extract_pdf(copy, name or p.stem, config.max_upload_bytes(),
                                    lambda f, m: progress("extract", 0.95 * f, m), find_tables=tables_on(), sha256=sha,
                                    file_name=file_name)
            return _uploaded(self._ingest(extracted, started, size, overlap, progress), file_name)
        finally:
            copy.unlink(missing_ok=True)  # moved into place on commit; otherwise not kept

    def reindex(self, doc_id: str, chunk_size: int, chunk_overlap: int, progress: ProgressFn | None = None) -> IngestResult:
        authorize(Action.UPLOAD, doc_id)
        return self._ingest(self.stored_pdf(doc_id, for_index=True), time.perf_counter(), chunk_size, chunk_overlap,
                            progress)

    def stored_pdf(self, doc_id: str, for_index: bool = False) -> ExtractedPdf:
        """A document as it was read at ingest: its stored pages, and from its kept original the PDF's properties,
        outline and first pages' layout (sections and metadata survive a re-index)."""
        info = self.repo.get(doc_id)
        r = self.repo.row(doc_id)
        pages = self.repo.pages(doc_id)
        # to index it again (``for_index``): its tables found, and scans left unread read; to read its metadata: not
        texts = [p.text if p.number not in info.ocr_pages else "" for p in pages] if for_index and tables_on() else []
        meta, toc, layout, share, found = _kept_pdf_facts(doc_id, texts)
        ex = ExtractedPdf(info.name, r.sha256, r.n_bytes, pages, info.empty_pages,
                          pdf_metadata=meta, toc=toc, layout=layout, image_share=share, ocr_pages=info.ocr_pages,
                          ocr_failed=info.ocr_failed, ocr_missing=info.ocr_missing, tables=found)
        return _read_unread_scans(ex, doc_id) if for_index else ex

    def _ingest(
        self,
        ex: ExtractedPdf,
        started: float,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
        progress: ProgressFn | None = None,
    ) -> IngestResult:
        progress = progress or _noop
        chunk_size, chunk_overlap = _settings(chunk_size, chunk_overlap)
        doc_id = ex.sha256[:12]
        stage_s: dict[str, float] = {"extract": time.perf_counter() - started}
        progress("extract", 1.0, f"{ex.n_pages} pages, {ex.n_chars:,} characters")

        def waiting(holder: str | None) -> None:
            progress("embed", 0.0, f"waiting: this document is being written by {holder or 'another process'}")

        # Writes to one document serialise through a lease in the SQL store; a second ingest of the same file
        # waits here, then finds it indexed.
        with leases.held(f"doc:{doc_id}", self.repo.engine, f"indexing {ex.name}", on_wait=waiting):
            return self._ingest_locked(ex, started, doc_id, chunk_size, chunk_overlap, progress, stage_s)

    def _ingest_locked(self, ex: ExtractedPdf, started: float, doc_id: str, chunk_size: int, chunk_overlap: int,
                       progress: ProgressFn, stage_s: dict[str, float]) -> IngestResult:
        emb = self.index.embedder
        prev = self.repo.by_sha(ex.sha256)
        done = self._done(prev, chunk_size, chunk_overlap, ex.data or ex.source, started, progress, ex.ocr_pages) \
            if prev is not None else None
        if done is not None:
            return done

        t = time.perf_counter()
        progress("chunk", 0.0, "splitting into chunks")
        chunks = assign_sections(chunk_pages(ex.pages, emb.count_tokens, chunk_size, chunk_overlap, emb.max_tokens),
                                 ex.toc, ex.pages)
        chunks += table_chunks(ex, len(chunks), emb.count_tokens, chunk_size, emb.max_tokens)
        title = document_title(ex)
        n_tokens = sum(emb.count_tokens_many([p.text for p in ex.pages]))
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
        engine = self.repo.engine
        try:
            with self.index.writing(engine):
                self.index.add(doc_id, ids, [c.text for c in chunks], vectors, metas)
            self.repo.commit(ex, doc_id, gen, chunks, chunk_size, chunk_overlap, n_tokens, prev is None,
                             time.perf_counter() - started, embedder_label(emb))
        except BaseException:
            # Interrupt or failure: take back this generation's vectors; the old generation (if any) stays live.
            with self.index.writing(engine):
                self.index.drop_generation(doc_id, gen)
            raise
        # Every other generation goes: the one replaced, and any a killed writer left (kill -9 mid-write leaves its
        # vectors with no committed row; the doc: lease held here means no live writer owns them).
        with self.index.writing(engine):
            self.index.drop_other_generations(doc_id, gen)
        if (kept := ex.data or ex.source) is not None:
            originals.save(doc_id, kept, move=isinstance(kept, Path))  # for citations that open the page
        stage_s["index"] = time.perf_counter() - t
        progress("index", 1.0, f"{len(chunks)} chunks indexed")
        seconds = round(time.perf_counter() - started, 3)
        return IngestResult(
            doc_id, ex.name, ex.n_pages, len(chunks), ex.empty_pages, seconds, ex.n_chars, n_tokens,
            stage_seconds={k: round(v, 3) for k, v in stage_s.items()}, ocr_pages=ex.ocr_pages,
            ocr_failed=ex.ocr_failed, ocr_missing=ex.ocr_missing,
        )

    def _done(self, prev: Any, chunk_size: int, chunk_overlap: int, data: bytes | Path | None, started: float,
              progress: ProgressFn, read_by_ocr: list[int] | None = None) -> IngestResult | None:
        """The stored result when this file is indexed as asked; None when it must be indexed (again): other
        chunk settings, vectors another embedder made (so the ingest still returns a document at final quality),
        scanned pages left unread for want of Tesseract, which is installed now, or (``read_by_ocr``: the pages
        OCR has just read) pages OCR read now that the stored text lacks."""
        info = info_of(prev)
        if (info.chunk_size, info.chunk_overlap) != (chunk_size, chunk_overlap) or \
                info.made_with != embedder_label(self.index.embedder) or \
                (info.ocr_missing and ocr.tessdata() is not None) or \
                (read_by_ocr is not None and sorted(read_by_ocr) != sorted(info.ocr_pages)):
            return None
        for stage in STAGES[1:]:
            progress(stage, 1.0, "already indexed")
        if data is not None and originals.path(info.doc_id) is None:  # indexed before originals were kept
            originals.save(info.doc_id, data, move=isinstance(data, Path))  # a path: the ingest's private copy
        return indexed_already(prev, round(time.perf_counter() - started, 3))


def _uploaded(res: IngestResult, file_name: str) -> IngestResult:
    """The audit record's line for a document indexed (once it is committed)."""
    record(Action.UPLOAD, f"document {res.doc_id}", detail=f"{file_name}: {res.pages} pages, {res.chunks} chunks")
    return res


def indexed_already(row: Any, seconds: float = 0.0) -> IngestResult:
    """The result of an ingest that found its document indexed as asked (a stored document row): nothing done."""
    info = info_of(row)
    return IngestResult(info.doc_id, info.name, info.pages, info.chunks, info.empty_pages, seconds, info.chars,
                        info.tokens, skipped=True, ocr_pages=info.ocr_pages, ocr_failed=info.ocr_failed,
                        ocr_missing=info.ocr_missing)


def _settings(chunk_size: int | None, chunk_overlap: int | None) -> tuple[int, int]:
    """The chunk size and overlap to use (the settings' where not given), checked."""
    size = int(chunk_size if chunk_size is not None else (config.get("NEPAQA_CHUNK_SIZE") or 200))
    overlap = int(chunk_overlap if chunk_overlap is not None else (config.get("NEPAQA_CHUNK_OVERLAP") or 40))
    if size < MIN_CHUNK_TOKENS:
        raise UserError(f"Chunk size must be at least {MIN_CHUNK_TOKENS} tokens (got {size}).")
    if not 0 <= overlap < size:
        raise UserError(f"Chunk overlap must be at least 0 and smaller than the chunk size ({size}); got {overlap}.")
    return size, overlap


def _has_scans(row: Any) -> bool:
    """Whether a stored document has scanned pages on record (read by OCR, failed, or left for want of
    Tesseract). A text PDF uploaded again is read again: its text comes from the extractor as it is now."""
    info = info_of(row)
    return bool(info.ocr_pages or info.ocr_failed or info.ocr_missing)


def _read_unread_scans(ex: ExtractedPdf, doc_id: str) -> ExtractedPdf:
    """A stored document whose scanned pages were left unread (Tesseract missing, or OCR failed), with those
    pages read by OCR from its kept original when Tesseract is installed now; else as stored."""
    unread = sorted({*ex.ocr_missing, *ex.ocr_failed})
    kept = originals.path(doc_id)
    if not unread or kept is None or ocr.tessdata() is None:
        return ex
    import pymupdf  # heavy: imported on first use, off start-up

    with pymupdf.open(kept) as doc:  # type: ignore[no-untyped-call]  # pymupdf leaves Document() unannotated
        read = read_scans(doc, unread)
    for page in ex.pages:
        page.text = read.texts.get(page.number, page.text)
    ex.ocr_pages = sorted({*ex.ocr_pages, *read.texts})
    ex.ocr_failed, ex.ocr_missing = read.failed, read.missing
    ex.empty_pages = [p.number for p in ex.pages if not p.text]
    return ex


def embedder_label(emb: Embedder) -> str:
    """What made a document's vectors: the model and its backend (int8 ONNX vectors are close to torch's, not equal)."""
    return f"{emb.name} ({getattr(emb, 'backend', 'torch')})"


def document_title(ex: ExtractedPdf) -> str:
    """The title chunks are indexed under: the PDF's own title where it has one, else the file name."""
    title = " ".join(str(ex.pdf_metadata.get("title") or "").split())
    return title if len(title) >= 8 else ex.name


def embed_text(chunk: Chunk, title: str) -> str:
    """What the embedder sees: the chunk with its title and section path in front when CONTEXTUAL is on."""
    return lexical.context_text(chunk, title) if CONTEXTUAL else chunk.text


def _kept_pdf_facts(doc_id: str, texts: list[str]) -> tuple[dict[str, str], list[list[Any]], list[LayoutLine],
                                                           dict[int, float], list[tables.Table]]:
    """The PDF metadata, outline, first pages' layout, image shares and tables (of the pages whose ``texts`` are
    given) of a document's kept original; empty when none was kept."""
    kept = originals.path(doc_id)
    if kept is None:
        return {}, [], [], {}, []
    import pymupdf  # heavy: imported on first use, off start-up

    try:
        with pymupdf.open(kept) as doc:  # type: ignore[no-untyped-call]  # pymupdf leaves Document() unannotated
            meta, toc = info_and_outline(doc)
            layout, share = first_pages_layout(doc)
            found = tables.find_tables(doc, texts) if texts and len(texts) == doc.page_count else []
            return meta, toc, layout, share, found
    except Exception:  # a damaged kept copy: re-index from the stored text without them
        return {}, [], [], {}, []


def tables_on() -> bool:
    """Whether tables are indexed as their own passages (on by default; ``NEPAQA_TABLES=0`` leaves them prose)."""
    return str(config.get("NEPAQA_TABLES") or "1").strip().lower() in ("1", "true", "yes", "on")


def table_chunks(ex: ExtractedPdf, first: int, count_tokens: Callable[[str], int], chunk_size: int,
                 max_tokens: int) -> list[Chunk]:
    """The document's tables as chunks numbered from ``first``: Markdown rows under the caption and header row,
    labelled by the caption. Their offsets span the table's pages in the document text."""
    _, starts = join_pages(ex.pages)
    ends = [s + len(p.text) for s, p in zip(starts, ex.pages, strict=True)]
    out: list[Chunk] = []
    for table in ex.tables:
        for text, start, end, n in tables.passages(table, count_tokens, chunk_size, max_tokens):
            out.append(Chunk(first + len(out), text, start, end, starts[start - 1], ends[end - 1], n,
                             section=table.caption))
    return out
