"""Retrieval over a scope of documents: dense (Chroma), lexical (the persistent full-text index, lexical.py, ranked
in memory by bm25.py) and
hybrid (reciprocal-rank fusion of the two)."""
from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from sqlalchemy import select

from lib.collection import lexical, volumes
from lib.collection.document_store import DocumentStore
from lib.collection.ingest import embedder_label, tables_on
from lib.collection.repository import DocInfo
from lib.collection.vectors import query_scope
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.core.text import tokenize
from lib.documents.chunking import Chunk, is_navigation
from lib.documents.mentions import DocRef, without_mentions
from lib.documents.tables import is_table_passage
from lib.retrieval.comparison import MAX_COMPARED, Comparison, recognise, refs_of
from lib.storage import tables

METHODS = ("hybrid", "dense", "lexical")
METHOD_ALIASES = {"bm25": "lexical"}
RRF_K = 60  # the constant from Cormack et al. (2009); not tuned here
Key = TypeVar("Key", bound=Hashable)  # what is ranked: a (document, chunk) pair, a chunk index
CANDIDATES = 50  # how deep each ranker's list goes into the fusion
NAVIGATION_SLACK = 20  # single-method lists go this much deeper than k, for table-of-contents chunks to give way
TWIN_SHARE = 0.6  # a table passage holding this share of a prose chunk's words reads the same rows as it
MAX_BALANCED_TOP_UP = 50  # documents a balanced search looks up one by one when the shared lists missed them

@dataclass
class Hit:
    chunk: Chunk
    score: float
    rank: int
    doc_id: str = ""
    doc_name: str = ""  # how citations name the document: its project title or title (file name if neither)
    doc_file: str = ""  # the name it was indexed under
    ocr_pages: tuple[int, ...] = ()  # the chunk's pages that are scans whose text OCR read

    def as_dict(self) -> JSONObject:
        return {
            "doc_id": self.doc_id,
            "doc_name": self.doc_name,
            "doc_file": self.doc_file,
            "page_start": self.chunk.page_start,
            "page_end": self.chunk.page_end,
            "section": self.chunk.section,
            "text": self.chunk.text,
            "score": round(float(self.score), 6),
            "chunk_index": self.chunk.index,
            "read_by_ocr": list(self.ocr_pages),
        }


@dataclass
class QuestionSearch:
    """What a question's search found: its passages, and the comparison it makes (None: it makes none)."""

    hits: list[Hit]
    comparison: Comparison | None = None
    documents: list[DocRef] = field(default_factory=list)  # the scope's documents as texts name them (2 to MAX_COMPARED)


class _Bm25:
    """The in-memory rank_bm25 index of one document, kept only as the baseline bench/retrieval.py compares the
    persistent lexical index with."""

    def __init__(self, chunks: list[Chunk]) -> None:
        from rank_bm25 import BM25Okapi  # heavy: imported on first use, off start-up

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
    """Search over a scope of documents: one, a chosen set, or the whole collection."""

    def __init__(self, docs: DocumentStore) -> None:
        self.docs = docs
        self._lexical_ok: set[tuple[str, int]] = set()

    def search(self, doc_id: str, query: str, k: int = 5, method: str = "hybrid") -> list[Hit]:
        """One document (kept for callers that search a single EIS)."""
        return self.search_scope([doc_id], query, k, method)

    def search_question(self, doc_ids: Sequence[str] | None, question: str, k: int = 5, method: str = "hybrid",
                        balanced: bool = False) -> QuestionSearch:
        """The search Ask makes for a question over ``doc_ids`` (None: every document). A question that compares
        documents (comparison.recognise: it names some, or speaks of those in scope together) gets passages from
        each document it concerns, each document's from its own ranking (``search_each``), and at least one
        passage a document; any other question gets ``search_scope``'s."""
        infos = self._scope_infos(doc_ids)
        places = volumes.places(self.docs.engine) if len(infos) >= 2 else {}
        # the volumes of one EIS are one document to the question: never compared with each other
        one_eis = bool(places) and all(d in places for d in infos) and len({places[d].eis_id for d in infos}) == 1
        refs = refs_of(list(infos.values()), self.docs.engine) if len(infos) >= 2 and not one_eis else []
        if comparison := recognise(question, refs):
            # the documents' names choose where to search, not what: "What does the Goldrush Mine EIS say about
            # noise?" searches that document for "What does it say about noise?"
            topic = without_mentions(question, refs, counting=False) or question
            hits = self.search_each(comparison.doc_ids, topic, max(k, len(comparison.doc_ids)), method,
                                    keep_order=comparison.why == "named")
            first = list(dict.fromkeys(h.doc_id for h in hits))  # listed as the sources are numbered
            docs = sorted(comparison.documents, key=lambda r: first.index(r.doc_id) if r.doc_id in first else len(first))
            return QuestionSearch(hits, Comparison(tuple(docs), comparison.why), refs)
        return QuestionSearch(self.search_scope(doc_ids, question, k, method, balanced), None,
                              refs if len(refs) <= MAX_COMPARED else [])

    def search_each(self, doc_ids: Sequence[str], query: str, k: int = 5, method: str = "hybrid",
                    keep_order: bool = False) -> list[Hit]:
        """The k best chunks of ``doc_ids`` in equal shares: each document's best, then each one's second…, each
        document searched on its own (in a ranking shared with larger documents, a small document's few listed
        chunks need not be its best). The documents take turns in the order of their best chunk in the shared
        ranking, which so gets a place left over; or as given with ``keep_order`` (the order a question names
        them in)."""
        ids = list(dict.fromkeys(doc_ids))
        own = {d: self.search_scope([d], query, k, method) for d in ids}
        if not keep_order:
            first = list(dict.fromkeys(h.doc_id for h in self.search_scope(ids, query, k + len(ids), method)))
            ids = [d for d in first if d in own] + [d for d in ids if d not in first]
        out: list[Hit] = []
        for depth in range(k):
            out += [own[d][depth] for d in ids if depth < len(own[d])]
        return [Hit(h.chunk, h.score, r + 1, h.doc_id, h.doc_name, h.doc_file, h.ocr_pages)
                for r, h in enumerate(out[:k])]

    def _scope_infos(self, doc_ids: Sequence[str] | None,
                     infos: dict[str, DocInfo] | None = None) -> dict[str, DocInfo]:
        infos = infos if infos is not None else {d.doc_id: d for d in self.docs.list()}
        if doc_ids is None:
            return infos
        unknown = [d for d in doc_ids if d not in infos]
        if unknown:
            self.docs.get(unknown[0])  # raises the UserError that names the known ids
        return {d: infos[d] for d in dict.fromkeys(doc_ids)}

    def search_scope(self, doc_ids: Sequence[str] | None, query: str, k: int = 5, method: str = "hybrid",
                     balanced: bool = False) -> list[Hit]:
        """The k best chunks over ``doc_ids`` (None: every document). ``balanced`` takes the best chunks of each
        document in turn, so every project in the scope is represented: up to MAX_COMPARED documents, each is
        searched on its own (``search_each``); over more, from the shared ranking, with each document missing from
        it searched alone."""
        method = METHOD_ALIASES.get(method, method)
        if method not in METHODS:
            raise UserError(f"Unknown retrieval method '{method}'; use one of {', '.join(METHODS)} (bm25 = lexical).")
        if k < 1:
            raise UserError("k must be at least 1.")
        if not query.strip():
            raise UserError("The query is empty; type a question or some key words.")
        infos = {d.doc_id: d for d in self.docs.list()}
        scope = self._scope_infos(doc_ids, infos)
        total = sum(d.chunks for d in scope.values())
        if not total:
            return []
        if balanced and 2 <= len(scope) <= MAX_COMPARED:
            return self.search_each(list(scope), query, k, method)
        k = min(k, total)
        # only vectors of the kind the query is embedded with are ranked by meaning; a document whose vectors
        # another embedder made (waiting to be embedded again: maintenance.stale_vectors) is ranked by its words
        current = embedder_label(self.docs.index.embedder)
        live = {d: info.gen for d, info in scope.items() if info.made_with == current}
        waiting = len(live) < len(scope)
        every = {d: info.gen for d, info in infos.items()}  # the lexical ranking's statistics are collection-wide
        sizes = {d: info.chunks for d, info in scope.items() if d in live}
        whole = doc_ids is None
        depth = min(total, max(CANDIDATES, k * (3 if balanced else 1)))
        dense: list[tuple[str, int, float]] = []
        # each list goes deeper than k, so table-of-contents chunks can give way to the next ones
        deep = min(total, max(depth, k + NAVIGATION_SLACK))
        if method == "dense":
            dense = self._dense(live, sizes, query, deep, whole and not waiting)
            ranked = [((d, i), s) for d, i, s in dense]
            if waiting:  # those documents by their words, fused with the others' ranking by meaning
                stale = {d: info for d, info in scope.items() if d not in live}
                lex = self._lexical(stale, query, deep, False, every)
                ranked = reciprocal_rank_fusion([[key for key, _ in ranked], [(d, i) for d, i, _ in lex]])
        elif method == "lexical":
            ranked = [((d, i), s) for d, i, s in self._lexical(scope, query, deep, whole, every)]
        else:
            # the two rankers run side by side (the embedder, Chroma and SQLite all release the GIL while they work)
            with ThreadPoolExecutor(max_workers=2) as pool:
                lex_future = pool.submit(self._lexical, scope, query, depth, whole, every)
                dense = self._dense(live, sizes, query, depth, whole and not waiting)
                lists = [[(d, i) for d, i, _ in dense], [(d, i) for d, i, _ in lex_future.result()]]
            ranked = reciprocal_rank_fusion(lists)
        if method != "lexical" and not dense and live and not waiting and self.docs.index.embedded:
            # Embedded Chroma keeps its search index in memory per process: vectors another process wrote after
            # this one started are invisible here. Say so instead of quietly degrading to keywords.
            raise UserError("The vector index in this process does not see these documents' vectors yet (they were "
                            "written by another process after this one started). Restart the app, or run "
                            "`python -m lib check`; for several writers use server mode (NEPAQA_CHROMA_URL).")
        # a document written after the list above was read may answer the whole-collection query: not in scope
        ranked = [(key, s) for key, s in ranked if key[0] in scope]
        if self.navigation_last:
            ranked = self._navigation_last(ranked)
        if tables_on():  # only a store indexed with tables has two readings of a table
            ranked = self._one_reading(ranked)
        if balanced:
            # a document none of whose chunks reached the rankers' depth still gets its best ones (searched alone)
            seen = {key[0] for key, _ in ranked}
            per_doc = max(1, -(-k // len(scope)))
            for d in [d for d, info in scope.items() if d not in seen and info.chunks][:MAX_BALANCED_TOP_UP]:
                ranked += [((h.doc_id, h.chunk.index), h.score)
                           for h in self.search_scope([d], query, per_doc, method)]
        ranked = balance(ranked, k) if balanced else ranked[:k]
        chunks = self._fetch([key for key, _ in ranked])
        names = self._names({key[0]: scope[key[0]].name for key, _ in ranked})
        return [Hit(chunks[key], s, r + 1, key[0], names[key[0]], scope[key[0]].name,
                    _scanned(chunks[key], scope[key[0]].ocr_pages))
                for r, (key, s) in enumerate(ranked) if key in chunks]

    navigation_last = True  # table-of-contents chunks after all others (bench/retrieval.py measures both)

    def warm(self) -> threading.Thread:
        """Check and read every document's lexical rows and segment (bm25.py) on a background thread, so the first
        search after the app starts does not (0.6 s over 100,000 chunks from their cache files, seconds without)."""
        def load() -> None:  # each document's rows checked once (_backfill), then every segment read
            infos = {d.doc_id: d for d in self.docs.list()}
            self._lexical(infos, "warm", 1, True, {d: info.gen for d, info in infos.items()})

        thread = threading.Thread(target=load, name="lexical-warm", daemon=True)
        thread.start()
        return thread

    def _navigation_last(self, ranked: list[tuple[tuple[str, int], float]]) -> list[tuple[tuple[str, int], float]]:
        """The same ranking with table-of-contents chunks (marked at ingest) moved after all others, in order."""
        if not ranked:
            return ranked
        t = tables.chunks
        cond = tables.chunk_keys(t, [key for key, _ in ranked])
        with self.docs.engine.connect() as c:
            rows = c.execute(select(t.c.doc_id, t.c.idx, t.c.navigation, t.c.text).where(cond)).fetchall()
        nav = {(r.doc_id, r.idx) for r in rows
               if (r.navigation if r.navigation is not None else is_navigation(r.text))}
        if not nav:
            return ranked
        return [x for x in ranked if x[0] not in nav] + [x for x in ranked if x[0] in nav]

    def _one_reading(self, ranked: list[tuple[tuple[str, int], float]]) -> list[tuple[tuple[str, int], float]]:
        """A table's passages (Markdown rows) and its prose run are two readings of the same rows. Where a prose
        chunk of a table (its caption as section) is ranked and a passage of that table sharing a page is ranked
        too, the table passage takes the higher place and the prose chunk goes: one table does not take two
        places in the list, and the place it takes reads its rows whole."""
        t = tables.chunks
        if not ranked:
            return ranked
        with self.docs.engine.connect() as c:
            rows = {(r.doc_id, r.idx): r for r in c.execute(
                select(t.c.doc_id, t.c.idx, t.c.text, t.c.section, t.c.page_start, t.c.page_end)
                .where(tables.chunk_keys(t, [key for key, _ in ranked])).where(t.c.section.is_not(None))).fetchall()}
        table = {key for key, r in rows.items() if is_table_passage(r.text)}
        if not table:
            return ranked

        words = {key: {w for w in tokenize(r.text) if len(w) > 3} for key, r in rows.items()}

        def twins(prose: tuple[str, int], passage: tuple[str, int]) -> bool:
            """The table passage holds most of the prose chunk's words: the same rows, read two ways."""
            ra, rb = rows[prose], rows[passage]
            if prose[0] != passage[0] or ra.section != rb.section or ra.page_start > rb.page_end or \
                    rb.page_start > ra.page_end:
                return False
            return len(words[prose] & words[passage]) >= TWIN_SHARE * max(1, len(words[prose]))

        out: list[tuple[tuple[str, int], float]] = []
        used: set[tuple[str, int]] = set()
        for key, score in ranked:
            if key in used:
                continue
            if key in rows and key not in table:  # a prose chunk: a table passage of its rows reads them better
                if any(twins(key, k) for k, _ in out if k in table):
                    continue  # its table is already in the list
                twin = next((k for k, _ in ranked if k in table and k not in used and twins(key, k)), None)
                if twin is not None:
                    used.add(twin)
                    out.append((twin, score))
                    continue
            used.add(key)
            out.append((key, score))
        return out

    def _names(self, files: dict[str, str]) -> dict[str, str]:
        """How citations name each document: its project (or title), and for a volume of an EIS, the volume."""
        return volumes.citation_names(files, self.docs.engine)

    def _dense(self, live: dict[str, int], sizes: dict[str, int], query: str, n: int,
               whole: bool) -> list[tuple[str, int, float]]:
        """The n nearest chunks to the query, embedded by the same model that made the documents' vectors."""
        vec = self.docs.index.embedder.embed_query(query)
        return query_scope(self.docs.index, live, vec, n, whole_collection=whole, sizes=sizes)

    def _lexical(self, scope: dict[str, DocInfo], query: str, n: int, whole: bool,
                 every: dict[str, int] | None = None) -> list[tuple[str, int, float]]:
        for doc_id, info in scope.items():
            if (doc_id, info.gen) not in self._lexical_ok:
                self._backfill(doc_id, info)
        return lexical.search(self.docs.engine, None if whole else list(scope), query, n, every)

    def _backfill(self, doc_id: str, info: DocInfo) -> None:
        """A store made before the lexical index existed gets its rows once, from the stored chunks."""
        if lexical.count(self.docs.engine, doc_id) != info.chunks:
            chunks = self.docs.chunks(doc_id)
            with self.docs.engine.begin() as c:
                lexical.write(c, doc_id, chunks, None)
        self._lexical_ok.add((doc_id, info.gen))

    def _fetch(self, keys: list[tuple[str, int]]) -> dict[tuple[str, int], Chunk]:
        if not keys:
            return {}
        t = tables.chunks
        with self.docs.engine.connect() as c:
            rows = c.execute(select(t).where(tables.chunk_keys(t, keys))).fetchall()
        return {(r.doc_id, r.idx): Chunk(r.idx, r.text, r.page_start, r.page_end, r.char_start, r.char_end,
                                         r.n_tokens, r.section or "") for r in rows}


def balance(ranked: list[tuple[tuple[str, int], float]], k: int) -> list[tuple[tuple[str, int], float]]:
    """Round-robin over documents in the order of their best chunk: each document's 1st, then each one's 2nd…"""
    per: dict[str, list[tuple[tuple[str, int], float]]] = {}
    for key, s in ranked:
        per.setdefault(key[0], []).append((key, s))
    out: list[tuple[tuple[str, int], float]] = []
    depth = 0
    while len(out) < k and any(len(v) > depth for v in per.values()):
        for hits in per.values():
            if depth < len(hits) and len(out) < k:
                out.append(hits[depth])
        depth += 1
    return out


def reciprocal_rank_fusion(rankings: list[list[Key]], k: int = RRF_K) -> list[tuple[Key, float]]:
    """Fuse ranked lists of ids: score(d) = sum over lists of 1 / (k + rank), rank starting at 1."""
    scores: dict[Key, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def _scanned(chunk: Chunk, ocr_pages: Sequence[int]) -> tuple[int, ...]:
    """The chunk's pages whose text OCR read."""
    return tuple(n for n in ocr_pages if chunk.page_start <= n <= chunk.page_end)
