"""The Search use case: what the collection can be filtered by, a filtered hybrid search over it, and each found
document's title and facts as the results list shows them. The page reads its widgets and draws what comes back;
the command line's ``search`` keeps its own flags (``--where``)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lib.collection import volumes
from lib.collection.repository import DocInfo
from lib.core import readable_name
from lib.documents import metadata
from lib.qa.services import Corpus
from lib.retrieval import DocResult, search_documents

FACT_FIELDS = ("document_type", "lead_agency", "states", "publish_date")  # the line under a found document's title


@dataclass(frozen=True)
class Filters:
    """What the user narrowed the search to; empty: the whole collection. Lead agencies are matched exactly, as
    the list offers them (any of those chosen)."""

    agencies: list[str] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    years: str = ""  # "2010-2020", "2015", "2010-"
    tags: list[str] = field(default_factory=list)
    text: str = ""  # in the title, project title, file name, EIS number or location

    def where(self) -> dict[str, object]:
        """The conditions ``metadata.collection_filter`` reads (the agencies are matched here, not there)."""
        where: dict[str, object] = {}
        if self.text.strip():
            where["text"] = self.text.strip()
        if self.states:
            where["states"] = self.states
        if self.types:
            where["document_type"] = self.types
        if self.years.strip():
            where["year"] = self.years.strip()
        if self.tags:
            where["tag"] = self.tags
        return where

    @property
    def any(self) -> bool:
        return bool(self.where() or self.agencies)


@dataclass(frozen=True)
class Facets:
    """The values the collection's documents hold, to filter by: each list sorted, without blanks."""

    agencies: list[str]
    states: list[str]  # two-letter codes
    types: list[str]
    tags: list[str]
    years: list[int] = field(default_factory=list)  # the years of publication known

    def year_range(self, low: int, high: int) -> str:
        """A year filter from a range picked over ``years``: "" (no filter) for the whole range, which keeps the
        documents whose year is unknown too."""
        return "" if self.years and (low, high) == (self.years[0], self.years[-1]) else f"{low}-{high}"


@dataclass(frozen=True)
class Found:
    """One document of the results, as the list shows it: its title, its facts and what the search found in it."""

    rank: int
    title: str
    facts: list[str]
    result: DocResult


class Collection:
    """The indexed documents and their metadata, read once (a page run, a command)."""

    def __init__(self, services: Corpus) -> None:
        self.services = services
        self.docs: list[DocInfo] = services.docs.list()
        self.meta = metadata.get_many([d.doc_id for d in self.docs], services.docs.engine)

    def value(self, doc_id: str, key: str) -> str:
        """A metadata value as text: a list joined with commas; "" where there is none."""
        return metadata.text_of(self.meta.get(doc_id), key)

    def facets(self) -> Facets:
        tags = metadata.tags_many([d.doc_id for d in self.docs], self.services.docs.engine)
        return Facets(
            agencies=sorted({self.value(d.doc_id, "lead_agency") for d in self.docs} - {""}, key=str.casefold),
            states=sorted({s for d in self.docs for s in metadata.list_of(self.meta[d.doc_id], "states")}),
            types=sorted({self.value(d.doc_id, "document_type") for d in self.docs} - {""}, key=str.casefold),
            tags=sorted({t for ts in tags.values() for t in ts}),
            years=sorted({y for d in self.docs
                          if (y := metadata.year_of(metadata.value_of(self.meta[d.doc_id], "publish_date")))}))

    def scope(self, filters: Filters) -> list[str] | None:
        """The ids of the documents the filters keep (None: no filter, the whole collection). A filter the
        metadata cannot read (a year range written wrongly) raises UserError with what to write instead."""
        where = filters.where()
        scope = metadata.collection_filter(self.docs, where, self.services.docs.engine, self.meta) if where else None
        if filters.agencies:  # any of the chosen agencies, as the list names them
            pool = scope if scope is not None else [d.doc_id for d in self.docs]
            scope = [i for i in pool if self.value(i, "lead_agency") in filters.agencies]
        return scope

    def search(self, query: str, scope: list[str] | None) -> list[DocResult]:
        """Hybrid search over ``scope`` (None: every document), ranked by each document's best passage."""
        return search_documents(self.services.retriever, query, scope)

    def shown(self, results: list[DocResult]) -> list[Found]:
        """The results as the list shows them, ranked from 1; a document deleted since the search is left out."""
        known = [r for r in results if r.doc_id in self.meta]
        places = volumes.places(self.services.docs.engine)

        files = {d.doc_id: d.name for d in self.docs}

        def title(r: DocResult) -> str:  # a volume of an EIS: its title (else file name as words), then its volume
            if r.doc_id not in places:
                return metadata.display_title(self.meta[r.doc_id], r.name)
            shown = metadata.display_title(self.meta[r.doc_id], readable_name(files.get(r.doc_id, r.doc_id)))
            return f"{shown} — {volumes.label(places[r.doc_id].position, self.value(r.doc_id, 'volume_title'))}"

        return [Found(rank, title(r),
                      [x for x in (self.value(r.doc_id, k) for k in FACT_FIELDS) if x], r)
                for rank, r in enumerate(known, start=1)]


def within(volumes_of_eis: Sequence[str], scope: Sequence[str] | None) -> list[str]:
    """An EIS's volumes (in order) that a filtered scope also holds (None: no filter)."""
    return [d for d in volumes_of_eis if scope is None or d in scope]
