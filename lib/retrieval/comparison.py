"""Questions that compare documents: which documents a question concerns.

A question over several documents (scope "all" or a set) compares them when it names one or more of them (by
title, project title, EIS number, file name or a word of its name no other document shares), or speaks of them
together ("both", "each", "the two", "these EISs", "compare"). It then concerns the documents it names, or, naming
none, every document in scope. Retrieval draws each one's passages from that document's own ranking
(retriever.Retriever.search_question), and the support check holds a claim about several documents to each
(lib/qa/support.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lib.collection import volumes
from lib.core.json_types import JSONObject
from lib.core.text import readable_name
from lib.documents.mentions import DocRef, compares, distinguish, doc_ref, mentioned
from lib.documents.metadata import get_many, text_of

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from lib.collection.repository import DocInfo

MAX_COMPARED = 10  # a question compares at most this many documents; a wider scope is searched as one ranking


@dataclass(frozen=True)
class Comparison:
    """The documents a question concerns, and why: ``named`` (it names them) or ``together`` (it speaks of the
    documents in scope together and names none)."""

    documents: tuple[DocRef, ...]
    why: str  # "named" | "together"

    @property
    def doc_ids(self) -> list[str]:
        return [r.doc_id for r in self.documents]

    def describe(self) -> str:
        names = ", ".join(r.name for r in self.documents)
        return (f"a question about {names}: each one's passages come from its own search" if self.why == "named"
                else f"a question comparing {len(self.documents)} documents ({names}): each one's passages come "
                     "from its own search")

    def as_dict(self) -> JSONObject:
        return {"why": self.why, "documents": [r.as_dict() for r in self.documents]}


def refs_of(infos: Sequence[DocInfo], engine: Engine) -> list[DocRef]:
    """The documents (each with ``doc_id`` and ``name``, the name it was indexed under) as texts may name them:
    from their metadata's title, project title and EIS number, and their file name; each with the words of its
    names no other of them shares."""
    metas = get_many([i.doc_id for i in infos], engine)
    names = volumes.citation_names({i.doc_id: i.name for i in infos}, engine)  # a volume: with its volume
    refs = []
    for info in infos:
        meta = metas.get(info.doc_id) or {}
        values = [text_of(meta, k) or None for k in ("title", "project_title", "eis_number")]
        refs.append(doc_ref(info.doc_id, names[info.doc_id], [*values, readable_name(info.name)]))
    return distinguish(refs)


def recognise(question: str, refs: Sequence[DocRef]) -> Comparison | None:
    """The comparison ``question`` makes over the documents ``refs`` (those in scope), or None: fewer than two
    documents in scope, or a question that neither names one nor speaks of them together."""
    if len(refs) < 2:
        return None
    named = mentioned(question, refs)
    by_id = {r.doc_id: r for r in refs}
    if len(named) == 1 and compares(question) and len(refs) <= MAX_COMPARED:
        # "How does Alaska LNG compare with Cape Wind?" where one name is not recognised: the one named first,
        # then every other document in scope
        return Comparison(tuple([by_id[named[0]], *(r for r in refs if r.doc_id != named[0])]), "named")
    if named:
        return Comparison(tuple(by_id[d] for d in named[:MAX_COMPARED]), "named")
    if compares(question) and len(refs) <= MAX_COMPARED:
        return Comparison(tuple(refs), "together")
    return None
