"""The Documents use case: the indexed documents as the page lists them (filtered and sorted by their metadata, with
titles told apart and the documents searched by their words only marked), indexing started and its last finished
result, and a passage's place and snippet in "Try retrieval". The page reads its widgets and draws what comes
back; the filters and facets are the Search use case's (one rule for both pages)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lib.app import volumes as volumes_case
from lib.app.job_handlers import REEMBED
from lib.app.job_params import parse
from lib.app.search import Collection, Filters
from lib.collection import stale_vectors
from lib.collection.repository import DocInfo
from lib.core import config, readable_name
from lib.core.context_text import ocr_label, pages_label
from lib.core.json_types import JSONObject
from lib.documents import Chunk, metadata, ocr
from lib.documents.tables import is_table_passage
from lib.qa.services import Corpus
from lib.storage import jobs

INGEST = "ingest"
COLUMNS = ("title", "type", "lead agency", "states", "published", "EIS number", "tags", "search", "pages", "chunks",
           "file", "characters", "tokens (embedder)", "chunk size (tokens)", "overlap (tokens)", "pages without text",
           "indexing time", "id")
SHOWN_FIRST = ("title", "type", "lead agency", "states", "published", "pages", "tags", "search")  # the rest: one toggle


class Library(Collection):
    """The indexed documents with their metadata, tags and titles, read once (a page run)."""

    def __init__(self, services: Corpus) -> None:
        super().__init__(services)
        self.tags = metadata.tags_many([d.doc_id for d in self.docs], services.docs.engine)
        volume = volumes_case.labels(services)  # a volume of an EIS: its title, then which volume
        self.titles = {d.doc_id: metadata.display_title(self.meta[d.doc_id], d.name)
                       + (f" — {volume[d.doc_id]}" if d.doc_id in volume else "") for d in self.docs}

    def stale(self) -> set[str]:
        """The documents another embedder (or precision) embedded: searched by their words only until embedded
        again."""
        return {d.doc_id for d in stale_vectors(self.services.docs)}

    def listed(self, filters: Filters, sort_by: str = metadata.SORTS[0], descending: bool = False) -> list[DocInfo]:
        """The documents the filters keep, sorted by one of ``metadata.SORTS`` (unknown values last). A filter
        the metadata cannot read raises UserError with what to write instead."""
        scope = self.scope(filters)
        keep = None if scope is None else set(scope)
        kept = self.docs if keep is None else [d for d in self.docs if d.doc_id in keep]
        return metadata.sort_documents(kept, sort_by, self.meta, self.tags, descending)

    def rows(self, shown: Sequence[DocInfo], stale: set[str]) -> list[dict[str, object]]:
        """The documents table, one row per document, in ``COLUMNS`` order."""
        return [dict(zip(COLUMNS, (
            self.titles[d.doc_id], self.value(d.doc_id, "document_type"), self.value(d.doc_id, "lead_agency"),
            self.value(d.doc_id, "states"), self.value(d.doc_id, "publish_date"), self.value(d.doc_id, "eis_number"),
            ", ".join(self.tags[d.doc_id]), "by words only, until embedded again" if d.doc_id in stale else "ready",
            d.pages, d.chunks, d.name, d.chars, d.tokens, d.chunk_size, d.chunk_overlap, len(d.empty_pages),
            f"{d.seconds:.0f} s", d.doc_id), strict=True)) for d in shown]

    def names(self, shown: Sequence[DocInfo]) -> dict[str, str]:
        """Each document's name in a picker: its title, with the file name where two titles read the same."""
        every = list(self.titles.values())
        same = {t for t in every if every.count(t) > 1}
        return {d.doc_id: self.titles[d.doc_id] + (f" · {d.name}" if self.titles[d.doc_id] in same else "")
                for d in shown}

    def every_tag(self) -> list[str]:
        return sorted({t for ts in self.tags.values() for t in ts})

    def info(self, doc_id: str) -> DocInfo:
        return next(d for d in self.docs if d.doc_id == doc_id)


def start_ingest(params: JSONObject, title: str) -> str:
    """Index in the background (the job keeps running while the user works elsewhere); its job id."""
    return jobs.submit(INGEST, params, title)


def watched_ingests(mine: Sequence[str], limit: int = 10) -> list[str]:
    """The ingest jobs to show progress for: this session's, then any still running (started before a reload,
    in another tab, or from the command line), each once."""
    running = [j.job_id for j in jobs.list_jobs(limit, kind=INGEST, light=True) if j.active]
    return list(dict.fromkeys([*mine, *running]))


def reembed_running() -> bool:
    return any(j.active for j in jobs.list_jobs(10, kind=REEMBED, light=True))


@dataclass(frozen=True)
class IngestDone:
    """A finished ingest, as its job's result holds it and the page reports it."""

    name: str  # the name it was indexed under (the file's, without .pdf)
    pages: int
    chunks: int
    seconds: float
    doc_id: str | None = None
    skipped: bool = False  # it was indexed before: nothing was done
    chars: int = 0
    tokens: int = 0
    empty_pages: list[int] = field(default_factory=list)
    ocr_pages: list[int] = field(default_factory=list)  # read by OCR
    ocr_failed: dict[int, str] = field(default_factory=dict)  # scans OCR could not read, and why
    ocr_missing: list[int] = field(default_factory=list)  # scans left unread: Tesseract is not installed

    def page_notes(self, shown: int = 30) -> list[tuple[str, str]]:
        """What became of the pages without a text layer (see ``page_notes``)."""
        return page_notes(self, shown)

    def headline(self, title: str) -> str:
        """"<title> (file <name>) is ready." — the user's file named where the title is not read from it (not the
        bundled sample's: its file name is ours, not theirs)."""
        named = readable_name(self.name) != title and self.name not in (config.SAMPLE_PDF.name, config.SAMPLE_PDF.stem)
        return (title + (f" (file {self.name})" if named else "") + " is ready"
                + (" — it was already indexed." if self.skipped else "."))


def page_notes(d: IngestDone | DocInfo, shown: int = 30) -> list[tuple[str, str]]:
    """What became of a document's pages without a text layer, as ("info" | "warning", text) lines: read by OCR,
    left unread for want of Tesseract (and what to do), not readable by OCR (and why), blank."""
    def listed(pages: Sequence[int]) -> str:
        return ", ".join(map(str, pages[:shown])) + (" …" if len(pages) > shown else "")

    notes: list[tuple[str, str]] = []
    if d.ocr_pages:
        notes.append(("info", f"{len(d.ocr_pages)} scanned page(s) were read by OCR: {listed(d.ocr_pages)}. "
                              "Their passages say so where they are cited; check a figure against the page."))
    if d.ocr_missing:
        notes.append(("warning", f"{len(d.ocr_missing)} scanned page(s) were not read, because {ocr.MISSING}: "
                                 f"{listed(d.ocr_missing)}. Then index the PDF again (or Re-index it): "
                                 "those pages are read and the rest stays as it is."))
    if d.ocr_failed:
        first = next(iter(d.ocr_failed.items()))
        notes.append(("warning", f"{len(d.ocr_failed)} scanned page(s) could not be read by OCR: "
                                 f"{listed(sorted(d.ocr_failed))} (p. {first[0]}: {first[1]}). The other "
                                 "pages are indexed."))
    unread = {*d.ocr_missing, *d.ocr_failed}
    blank = [n for n in d.empty_pages if n not in unread]
    if blank:
        notes.append(("info", f"{len(blank)} page(s) have no text (blank, or a picture without words): "
                              f"{listed(blank)}."))
    return notes


def last_finished(job_ids: Sequence[str]) -> IngestDone | None:
    """The first of these ingest jobs (newest first) that finished, as the page reports it; None when none has."""
    for job_id in job_ids:
        job = jobs.get(job_id)
        if job.status == "done":
            return parse(IngestDone, job.result, "result")
    return None


def page_span(chunk: Chunk, ocr_pages: Sequence[int] = ()) -> str:
    """"4", "4–5", "212 (read by OCR)" where its page is a scan OCR read, "4–5 (p. 5 read by OCR)" where one of
    its pages is."""
    span = str(chunk.page_start) if chunk.page_start == chunk.page_end else f"{chunk.page_start}–{chunk.page_end}"
    note = ocr_label(chunk.page_start, chunk.page_end, ocr_pages)
    return span + (f" ({note})" if note else "")


def chunk_rows(chunks: Sequence[Chunk], ocr_pages: Sequence[int] = ()) -> list[dict[str, object]]:
    """A document's chunks as the rows of its chunk list, in page order: a table's passages (Markdown rows, indexed
    after the prose) beside the prose of their pages, each marked as a table or text."""
    return [{"#": c.index, "pages": page_span(c, ocr_pages), "kind": "table" if is_table_passage(c.text) else "text",
             "tokens": c.n_tokens, "text": c.text}
            for c in sorted(chunks, key=lambda c: (c.page_start, c.index))]


def pages_of(chunk: Chunk) -> str:
    """"p. 4" or "pp. 4–5"."""
    return pages_label(chunk.page_start, chunk.page_end)


def snippet(text: str, limit: int) -> str:
    """The start of a passage, cut at a word, with " …" where it was cut."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    return (head.rsplit(" ", 1)[0] if " " in head else head) + " …"
