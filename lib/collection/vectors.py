"""The vector index: one ChromaDB collection, persistent on disk, or a Chroma server by URL."""
from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlparse

import numpy as np
from sqlalchemy.engine import Engine

from lib.collection.vector_ids import chunk_id, parse_chunk_id
from lib.core import config
from lib.models.embedding import Embedder, LazyEmbedder
from lib.storage import leases

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.types import Metadata, Where

COLLECTION = "nepaqa_chunks"


_embedding_class: list[type] = []  # ChromaEmbedding, made once chromadb is imported


def chroma_embedding(embedder: Embedder) -> Any:
    """Our embedder in Chroma's interface (an ``EmbeddingFunction``), so Chroma never falls back to its downloading
    default. The class is made on first use, when chromadb is imported."""
    if not _embedding_class:
        from chromadb.api.types import Documents, EmbeddingFunction, Embeddings  # heavy: imported on first use

        class ChromaEmbedding(EmbeddingFunction[Documents]):
            def __init__(self, embedder: Embedder) -> None:
                self._embedder = embedder

            def __call__(self, input: Documents) -> Embeddings:  # noqa: A002 (Chroma's parameter name)
                return [row for row in self._embedder.embed(list(input))]

            @staticmethod
            def name() -> str:
                return "nepaqa-sentence-transformer"

            def get_config(self) -> dict[str, Any]:
                return {"model": self._embedder.name}

            @staticmethod
            def build_from_config(config: dict[str, Any]) -> ChromaEmbedding:
                """Chroma calls this while it opens the collection (to check the function is not a legacy one):
                it must not load the model."""
                return ChromaEmbedding(LazyEmbedder())  # type: ignore[arg-type]

        _embedding_class.append(ChromaEmbedding)
    return _embedding_class[0](embedder)


def make_client(url: str | None = None, path: str | None = None) -> ClientAPI:
    import chromadb  # heavy: imported when the index is first opened, off start-up
    from chromadb.config import Settings  # heavy: as above

    settings = Settings(anonymized_telemetry=False, allow_reset=False)
    url = url if url is not None else (config.get("NEPAQA_CHROMA_URL") or "")
    if url:
        parsed = urlparse(url if "://" in url else f"http://{url}")
        return chromadb.HttpClient(
            host=parsed.hostname or "127.0.0.1",
            port=parsed.port or (443 if parsed.scheme == "https" else 8000),
            ssl=parsed.scheme == "https",
            settings=settings,
        )
    return chromadb.PersistentClient(path=path or str(config.paths().chroma), settings=settings)


def first(res: Any, field: str) -> list[Any]:
    """The first query's list of ``field`` in a Chroma result: Chroma types every field as optional, and gives
    the ones asked for in ``include``."""
    got = res[field]
    if got is None:
        raise RuntimeError(f"Chroma returned no {field} for a query that asked for them.")
    return list(got[0])


class VectorIndex:
    def __init__(self, client: ClientAPI, embedder: Embedder, embedded: bool = True) -> None:
        self.client = client
        self.embedder = embedder
        # The embedded (on-disk) client is not made for several processes writing one path; see writing().
        self.embedded = embedded
        self.collection = client.get_or_create_collection(
            COLLECTION,
            embedding_function=chroma_embedding(embedder),
            metadata={"hnsw:space": "cosine"},
        )

    def add(self, doc_id: str, ids: list[str], texts: list[str], embeddings: np.ndarray, metas: Sequence[Metadata]) -> None:
        batch = 256  # Chroma holds each call's vectors as Python lists: a long document's in one call took tens of MB
        for i in range(0, len(ids), batch):
            self.collection.add(
                ids=ids[i : i + batch],
                documents=texts[i : i + batch],
                embeddings=embeddings[i : i + batch],
                metadatas=[{**m, "doc_id": doc_id} for m in metas[i : i + batch]],
            )

    def delete_doc(self, doc_id: str) -> None:
        self.collection.delete(where={"doc_id": doc_id})

    def drop_generation(self, doc_id: str, gen: int) -> None:
        """Take back one generation's vectors (an ingest that failed or was interrupted)."""
        self.collection.delete(where={"$and": [{"doc_id": doc_id}, {"gen": gen}]})

    def drop_other_generations(self, doc_id: str, gen: int) -> None:
        """Remove a document's vectors of every generation but ``gen`` (after the switch to it)."""
        self.collection.delete(where=cast("Where", {"$and": [{"doc_id": doc_id}, {"gen": {"$ne": gen}}]}))

    @contextmanager
    def writing(self, engine: Engine) -> Iterator[None]:
        """Chroma's embedded client is not made for several processes writing one path: there, every vector
        write holds the one ``vector-writer`` lease in the SQL store, so writes from several processes take
        turns. A Chroma server serialises writes itself."""
        if self.embedded:
            with leases.held("vector-writer", engine, "writing vectors"):
                yield
        else:
            yield

    def count(self, doc_id: str | None = None) -> int:
        if doc_id is None:
            return int(self.collection.count())
        return len(self.collection.get(where={"doc_id": doc_id}, include=[])["ids"])

    def doc_ids(self) -> set[str]:
        got = self.collection.get(include=["metadatas"])
        return {str(m["doc_id"]) for m in got["metadatas"] or []}

    def query(self, doc_id: str, gen: int, embedding: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(chunk index, cosine similarity) for the k nearest chunks of one document's live generation."""
        res = self.collection.query(
            query_embeddings=[embedding],
            n_results=k,
            where={"$and": [{"doc_id": doc_id}, {"gen": gen}]},
            include=["metadatas", "distances"],
        )
        metas, dists = first(res, "metadatas"), first(res, "distances")
        return [(int(m["idx"]), 1.0 - float(d)) for m, d in zip(metas, dists, strict=True)]


_opening = threading.Lock()


def get_index(url: str, path: str, model: str | None = None) -> VectorIndex:
    """The index, with the embedder loaded on first use (reading the store needs no model). Opened once per
    process: jobs started together in a new process (a set of volumes) wait for the first to open it, since two
    Chroma clients made at once on one folder fail ("'RustBindingsAPI' object has no attribute 'bindings'")."""
    with _opening:
        return _open_index(url, path, model)


@lru_cache(maxsize=4)
def _open_index(url: str, path: str, model: str | None = None) -> VectorIndex:
    return VectorIndex(make_client(url, path), LazyEmbedder(model), embedded=not url)  # type: ignore[arg-type]


def default_index() -> VectorIndex:
    return get_index(config.get("NEPAQA_CHROMA_URL") or "", str(config.paths().chroma))


WIDE_SCOPE = 0.3  # a scope holding at least this share of the collection's chunks is searched without a filter


def query_scope(index: VectorIndex, live: dict[str, int], embedding: np.ndarray, k: int,
                whole_collection: bool = False, sizes: dict[str, int] | None = None) -> list[tuple[str, int, float]]:
    """(doc_id, chunk index, cosine similarity) of the k nearest chunks over a scope of documents (``live``:
    doc_id → committed generation; ``sizes``: doc_id → its chunk count). Vectors of other generations (a write in
    flight, a leftover) never count.

    Chroma's metadata filter (``where doc_id $in …``) costs 40–75 ms over 100,000 chunks, so: a wide scope (the
    whole collection, or at least WIDE_SCOPE of its chunks) is one unfiltered query, deep enough for the share
    the scope holds, filtered here by the ids (which carry document and generation); a narrow scope passes its
    chunks' ids to Chroma (15–30 ms). Where either falls short (vectors missing, another generation in the way),
    the metadata filter answers."""
    if not live:
        return []
    total = index.collection.count()
    if total == 0:
        return []
    in_scope = sum(sizes.get(d, 0) for d in live) if sizes else None
    share = 1.0 if whole_collection else (in_scope / total if in_scope else 0.0)
    want = min(k, in_scope) if in_scope else k

    def keep(ids: list[str], dists: list[float]) -> list[tuple[str, int, float]]:
        out = []
        for cid, d in zip(ids, dists, strict=True):
            parsed = parse_chunk_id(cid)
            if parsed and live.get(parsed[0]) == parsed[1]:
                out.append((parsed[0], parsed[2], 1.0 - float(d)))
        return _ties_in_order(out)[:k]

    if share >= WIDE_SCOPE:
        n = min(total, int(k / share * 1.25) + 10)
        res = index.collection.query(query_embeddings=[embedding], n_results=n, include=["distances"])
        got = keep(res["ids"][0], first(res, "distances"))
        if len(got) >= want:
            return got
    elif sizes and in_scope and in_scope <= 50_000:
        import chromadb.errors  # heavy: loaded already with the open index; named here for its error type

        ids = [chunk_id(d, g, i) for d, g in live.items() for i in range(sizes.get(d, 0))]
        try:
            res = index.collection.query(query_embeddings=[embedding], n_results=min(k + TIE_MARGIN, len(ids)), ids=ids,
                                         include=["distances"])
        except chromadb.errors.ChromaError:  # a chunk's vector is missing: the filter below still answers
            res = None
        if res is not None:
            got = keep(res["ids"][0], first(res, "distances"))
            if len(got) >= want:
                return got
    ids_sorted = sorted(live)
    where = cast("Where", {"doc_id": ids_sorted[0]} if len(ids_sorted) == 1 else {"doc_id": {"$in": ids_sorted}})
    res = index.collection.query(query_embeddings=[embedding], n_results=min(total, max(k, int(k * 1.25) + 5)),
                                 where=where, include=["metadatas", "distances"])
    out = []
    for m, d in zip(first(res, "metadatas"), first(res, "distances"), strict=True):
        doc_id = m.get("doc_id")
        if live.get(doc_id) != m.get("gen"):
            continue
        out.append((doc_id, int(m["idx"]), 1.0 - float(d)))
    return _ties_in_order(out)[:k]


TIE_MARGIN = 10  # nearest chunks asked beyond k, so a tie at the k-th place is settled here, not by the index


def _ties_in_order(hits: list[tuple[str, int, float]]) -> list[tuple[str, int, float]]:
    """Nearest first, and chunks at the same distance (the same text in two documents: a volume and its excerpt)
    by document and index: Chroma's HNSW index orders such ties by how its graph was built, which differs between
    the process that wrote the vectors and one that opens the store later."""
    return sorted(hits, key=lambda h: (-h[2], h[0], h[1]))
