"""Maintenance of the store: an explicit, lease-aware sweep, a check that every document has its vectors, and
embedding again the documents whose vectors another embedder made.

Nothing here runs in a constructor. ``repair`` runs when asked (``python -m lib repair``) and once when the
app starts; it never touches a document whose writer holds a live lease, so another process's ingest in
flight is safe.
"""
from __future__ import annotations

import builtins
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Protocol

from sqlalchemy.engine import Engine

from lib.collection.ingest import embedder_label
from lib.collection.repository import DocInfo, DocumentRepository
from lib.collection.vector_ids import chunk_id
from lib.collection.vectors import VectorIndex
from lib.core.access import Action, authorize
from lib.core.progress import ProgressFn
from lib.documents.chunking import Chunk
from lib.storage import leases


class Store(Protocol):
    """What maintenance needs of the document store: ``document_store.DocumentStore`` is one (it calls
    ``repair``, so it is named here by what it does, not imported)."""

    @property
    def index(self) -> VectorIndex: ...

    @property
    def engine(self) -> Engine: ...

    @property
    def repo(self) -> DocumentRepository: ...

    def list(self) -> builtins.list[DocInfo]: ...

    def chunks(self, doc_id: str) -> builtins.list[Chunk]: ...


@dataclass(frozen=True)
class Repaired:
    """What a sweep did: vectors removed, and the documents skipped because their writer's lease is live."""

    removed: int
    skipped_live: list[str]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class IndexCheck:
    """One document's index: its chunks in SQL, its vectors of the committed generation, whether they match (and
    it can be searched), what made them and whether that is what embeds queries now; ``fixed`` only when asked to
    fix (True: embedded again and now whole)."""

    doc_id: str
    name: str
    chunks: int
    vectors: int
    ok: bool
    embedded_with: str | None
    same_embedder_as_queries: bool
    fixed: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.fixed is None:  # "fixed" is said only when asked to fix
            del out["fixed"]
        return out


def repair(docs: Store) -> Repaired:
    """Remove vectors that no committed document generation owns (left by a hard kill), skipping documents
    whose writer's lease is live."""
    authorize(Action.SETTINGS, "repair the index")
    # Vectors first, then leases and committed generations: a write that starts after this read is not in
    # it, and one that committed or took its lease before the lease read is seen as such.
    got = docs.index.collection.get(include=["metadatas"])
    writing = {name.split(":", 1)[1] for name in leases.live("doc:", docs.engine)}
    committed: dict[object, int] = {d.doc_id: d.gen for d in docs.list()}  # read by what a vector's metadata says
    stale, skipped = [], set()
    for cid, meta in zip(got["ids"], got["metadatas"] or [], strict=True):
        doc_id = (meta or {}).get("doc_id")
        if committed.get(doc_id) == (meta or {}).get("gen"):
            continue
        if doc_id in writing:
            skipped.add(doc_id)
            continue
        stale.append(cid)
    if stale:
        with docs.index.writing(docs.engine):
            for i in range(0, len(stale), 5000):
                docs.index.collection.delete(ids=stale[i : i + 5000])
    return Repaired(len(stale), sorted(skipped))


def check(docs: Store, fix: bool = False, progress: ProgressFn | None = None) -> list[IndexCheck]:
    """One entry per document: its chunks in SQL, its vectors of the committed generation, whether they match,
    and what made them. With ``fix``, a document missing vectors, or whose vectors another embedder made, is
    embedded again from its stored chunks."""
    if fix:
        authorize(Action.SETTINGS, "repair the index")
    got = docs.index.collection.get(include=["metadatas"])
    per: Counter[tuple[object, object]] = Counter()
    for meta in got["metadatas"] or []:
        per[((meta or {}).get("doc_id"), (meta or {}).get("gen"))] += 1

    current = embedder_label(docs.index.embedder)
    out = []
    for d in docs.list():
        vectors = per[(d.doc_id, d.gen)]
        ok = vectors == d.chunks and (vectors == 0 or searchable(docs, d.doc_id, d.gen))
        entry = IndexCheck(d.doc_id, d.name, d.chunks, vectors, ok, d.made_with, d.made_with == current)
        if fix and (not ok or (d.chunks and d.made_with != current)):
            vectors = reembed(docs, d.doc_id, progress)
            entry = replace(entry, vectors=vectors, ok=vectors == d.chunks, fixed=vectors == d.chunks,
                            embedded_with=current, same_embedder_as_queries=True)
        out.append(entry)
    return out


def stale_vectors(docs: Store) -> list[DocInfo]:
    """The documents whose vectors another embedder (or another precision of it) made than the one that embeds
    queries now: searching them by meaning would compare two kinds of vectors, so until they are embedded again
    (``reembed``) they are searched by their words only."""
    current = embedder_label(docs.index.embedder)
    return [d for d in docs.list() if d.chunks and d.made_with != current]


def reembed(docs: Store, doc_id: str, progress: ProgressFn | None = None, only_stale: bool = False) -> int:
    """Embed a document's stored chunks again under a new generation and switch to it (under its lease), with
    today's embedder, which the document row then names. ``only_stale``: unless, once the lease is held, its
    vectors turn out to be today's kind (another job or an ingest did it meanwhile): then nothing is done."""
    authorize(Action.SETTINGS, doc_id)
    with leases.held(f"doc:{doc_id}", docs.engine, "embedding again"):
        info = next((d for d in docs.list() if d.doc_id == doc_id), None)
        if info is None or (only_stale and info.made_with == embedder_label(docs.index.embedder)):
            return 0  # deleted meanwhile, or embedded with today's model meanwhile
        chunks = docs.chunks(doc_id)
        if not chunks:
            return 0
        vectors = docs.index.embedder.embed([c.text for c in chunks],
                                            progress=(lambda f, m: progress("embed", f, m)) if progress else None)
        gen = time.time_ns()
        ids = [chunk_id(doc_id, gen, c.index) for c in chunks]
        metas = [{"gen": gen, "idx": c.index, "page_start": c.page_start, "page_end": c.page_end} for c in chunks]
        with docs.index.writing(docs.engine):
            docs.index.add(doc_id, ids, [c.text for c in chunks], vectors, metas)
        docs.repo.set_generation(doc_id, gen, embedder_label(docs.index.embedder))
        with docs.index.writing(docs.engine):
            docs.index.drop_other_generations(doc_id, gen)
    return len(chunks)


def searchable(docs: Store, doc_id: str, gen: int) -> bool:
    """Whether this process's index answers a nearest-neighbour query for the document (not only lists its
    vectors): Chroma's embedded client keeps its search index in memory, so vectors written by another process
    after this one started are listed but not found until this process restarts."""
    got = docs.index.collection.get(where={"$and": [{"doc_id": doc_id}, {"gen": gen}]}, include=["embeddings"],
                                    limit=1)
    embs = got.get("embeddings")
    if embs is None or len(embs) == 0:
        return False
    probe: builtins.list[Sequence[float] | Sequence[int]] = [[float(x) for x in embs[0]]]  # its first vector
    res = docs.index.collection.query(query_embeddings=probe, n_results=1,
                                      where={"$and": [{"doc_id": doc_id}, {"gen": gen}]}, include=["metadatas"])
    return bool(res["ids"] and res["ids"][0])
