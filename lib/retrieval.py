"""Retrieval over one document's chunks: dense (Chroma), BM25 (rank_bm25) and hybrid (reciprocal-rank fusion)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from rank_bm25 import BM25Okapi

from .chunking import Chunk
from .documents import DocumentStore
from .errors import UserError

METHODS = ("hybrid", "dense", "bm25")
RRF_K = 60  # the constant from Cormack et al. (2009); not tuned here
CANDIDATES = 50  # how deep each ranker's list goes into the fusion

_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "how", "if", "in", "into", "is", "it", "its", "of", "on", "or", "other", "should", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "was", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your"]
)


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens without stop words, with a light plural strip (not tuned to any document)."""
    out = []
    for w in _WORD.findall(text.lower()):
        if w in STOPWORDS:
            continue
        if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


@dataclass
class Hit:
    chunk: Chunk
    score: float
    rank: int

    def as_dict(self) -> dict:
        return {
            "text": self.chunk.text,
            "page_start": self.chunk.page_start,
            "page_end": self.chunk.page_end,
            "score": round(float(self.score), 6),
            "chunk_index": self.chunk.index,
        }


class _Bm25:
    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self.model = BM25Okapi([tokenize(c.text) or ["<empty>"] for c in chunks])

    def top(self, query: str, n: int) -> list[tuple[int, float]]:
        terms = tokenize(query)
        if not terms:
            return []
        scores = self.model.get_scores(terms)
        order = sorted(range(len(scores)), key=lambda i: -scores[i])[:n]
        return [(i, float(scores[i])) for i in order if scores[i] > 0]


class Retriever:
    def __init__(self, docs: DocumentStore) -> None:
        self.docs = docs
        self._chunk_cache: dict[tuple[str, int], list[Chunk]] = {}
        self._bm25: dict[tuple[str, int], _Bm25] = {}

    def _chunks(self, doc_id: str, gen: int) -> list[Chunk]:
        key = (doc_id, gen)
        if key not in self._chunk_cache:
            self._chunk_cache = {k: v for k, v in self._chunk_cache.items() if k[0] != doc_id}
            self._chunk_cache[key] = self.docs.chunks(doc_id)
        return self._chunk_cache[key]

    def _bm25_index(self, doc_id: str, gen: int) -> _Bm25:
        key = (doc_id, gen)
        if key not in self._bm25:
            self._bm25 = {k: v for k, v in self._bm25.items() if k[0] != doc_id}
            self._bm25[key] = _Bm25(self._chunks(doc_id, gen))
        return self._bm25[key]

    def dense(self, doc_id: str, gen: int, query: str, n: int) -> list[tuple[int, float]]:
        vec = self.docs.index.embedder.embed_query(query)
        return self.docs.index.query(doc_id, gen, vec, n)

    def search(self, doc_id: str, query: str, k: int = 5, method: str = "hybrid") -> list[Hit]:
        if method not in METHODS:
            raise UserError(f"Unknown retrieval method '{method}'; use one of {', '.join(METHODS)}.")
        if k < 1:
            raise UserError("k must be at least 1.")
        if not query.strip():
            raise UserError("The query is empty; type a question or some key words.")
        info = self.docs.get(doc_id)
        chunks = self._chunks(doc_id, info.gen)
        if not chunks:
            return []
        k = min(k, len(chunks))
        if method == "dense":
            ranked = self.dense(doc_id, info.gen, query, k)
        elif method == "bm25":
            ranked = self._bm25_index(doc_id, info.gen).top(query, k)
        else:
            depth = min(len(chunks), max(CANDIDATES, k))
            lists = [self.dense(doc_id, info.gen, query, depth), self._bm25_index(doc_id, info.gen).top(query, depth)]
            ranked = reciprocal_rank_fusion([[i for i, _ in lst] for lst in lists])[:k]
        return [Hit(chunks[i], s, r + 1) for r, (i, s) in enumerate(ranked)]


def reciprocal_rank_fusion(rankings: list[list[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse ranked lists of ids: score(d) = sum over lists of 1 / (k + rank), rank starting at 1."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
