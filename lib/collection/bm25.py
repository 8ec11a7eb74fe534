"""The lexical ranking, computed in memory: BM25 exactly as SQLite FTS5's ``bm25()`` gives it, over one segment
per document generation.

Why not rank in SQL: a question's words are OR-ed, and its common words ("site", "project", "impact") match
almost every chunk, so FTS5 and PostgreSQL both score every matching row to find the best 50. Over 100,000 chunks
that took 160–290 ms (FTS5) and 160–190 ms (PostgreSQL's ts_rank) a search; here it takes a few milliseconds
(bench/corpus.py). The SQL tables (lexical.py) stay the store that survives restarts and is shared by every
process; this module reads them into segments and ranks.

Why not a library: ``bm25s`` (installable here) bakes the collection's statistics (idf, average length) into its
matrix when it builds it, so adding one document means rebuilding the whole index, and the first search after
an ingest would pay seconds; ``rank_bm25`` scores every document in Python. Neither ranks as FTS5 does, and the
ranking must not change (hit@3 on every evaluation set is kept).

The ranking (sqlite's fts5_aux.c; ties in the order the rows were written): for each query term t, idf(t) = ln((N − n(t) + 0.5) / (n(t) + 0.5)), floored
at 1e-6; a chunk's score is the sum over terms, in query order, of idf(t) · f·(k1 + 1) / (f + k1·(1 − b + b·D/avgdl))
with k1 = 1.2, b = 0.75, f the term's count in the chunk, D the chunk's tokens (its document id's token
included, as FTS5 counts every column) and avgdl their mean over the collection. N, n(t) and avgdl are over every
document, whatever the search's scope, as in FTS5.

A segment belongs to one generation of one document and never changes: a re-index makes a new one, a delete drops
it. Segments are built where a document is committed (from the text just written) or, in another process, from
the store on that process's first search over it, and kept in a file per generation under
``NEPAQA_HOME/lexical/`` (a cache: a process starting over 100,000 chunks reads 50 files instead of cutting every
chunk's text again, about 6 s here).
"""
from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from lib.core import config
from lib.core.text import tokenize

K1, B = 1.2, 0.75  # FTS5's constants
IDF_FLOOR = 1e-6  # FTS5's: a term in more than half the chunks still counts a little
TERM = re.compile(r"[a-z0-9]+")  # FTS5's unicode61 tokenizer over the index text (our tokens, split at - and ')
_DOC_TOKEN = re.compile(r"[A-Za-z0-9]+")
log = logging.getLogger(__name__)
TIDY_AFTER_S = 3600  # a cached segment of a document no longer in the store is removed after this long


def index_text(body: str) -> str:
    """What the full-text engine indexes: our own tokens (lower case, stop words out, plurals folded), the same
    for documents and queries and for SQLite and PostgreSQL, so ranking does not depend on the engine's stemmer."""
    return " ".join(tokenize(body))


@dataclass(frozen=True)
class Segment:
    """One document generation's postings: for the term numbered j in ``vocab``, rows[indptr[j]:indptr[j+1]] are
    positions in ``idx`` and tf the term's counts there."""

    gen: int
    idx: np.ndarray
    dl: np.ndarray
    vocab: dict[str, int]
    indptr: np.ndarray
    rows: np.ndarray
    tf: np.ndarray

    @property
    def tokens(self) -> float:
        return float(self.dl.sum())

    def df(self, term: str) -> int:
        j = self.vocab.get(term)
        return 0 if j is None else int(self.indptr[j + 1] - self.indptr[j])


def build(doc_id: str, gen: int, bodies: Iterable[tuple[int, str]]) -> Segment:
    """A segment from (chunk index, index text) pairs."""
    extra = len(_DOC_TOKEN.findall(doc_id))  # FTS5 counts the doc_id column's tokens in a row's length
    vocab: dict[str, int] = {}
    idx: list[int] = []
    dl: list[int] = []
    tids: list[int] = []
    rows: list[int] = []
    tfs: list[int] = []
    for r, (i, body) in enumerate(sorted(bodies)):
        words = TERM.findall(body)
        counts = Counter(words)
        idx.append(i)
        dl.append(len(words) + extra)
        tids += [vocab.setdefault(w, len(vocab)) for w in counts]
        rows += [r] * len(counts)
        tfs += counts.values()
    t = np.array(tids, dtype=np.int64)
    order = np.argsort(t, kind="stable")
    indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(np.bincount(t, minlength=len(vocab)), out=indptr[1:])
    return Segment(gen, np.array(idx, dtype=np.int64), np.array(dl, dtype=np.float64), vocab, indptr,
                   np.array(rows, dtype=np.int64)[order], np.array(tfs, dtype=np.float64)[order])


def is_token(doc_id: str) -> bool:
    """Whether FTS5 keeps this document id as one token (hex digests and synthetic ids do): then a MATCH on the
    doc_id column finds its rows from the index."""
    return bool(_DOC_TOKEN.fullmatch(doc_id))


def doc_match(doc_id: str) -> str:
    return f'doc_id : "{doc_id}"'


def _load(conn: Connection, doc_id: str, gen: int) -> Segment:
    """A document's segment from the store: SQLite keeps the index text in its FTS5 table; PostgreSQL keeps only
    the tsvector, so its chunks' text is cut again (the same tokens)."""
    if conn.dialect.name == "sqlite" and is_token(doc_id):
        # a MATCH on the doc_id column reads the document's rows from the index (a plain WHERE reads every row)
        rows = conn.execute(text("SELECT idx, body FROM chunks_fts WHERE chunks_fts MATCH :q"),
                            {"q": doc_match(doc_id)}).fetchall()
        return build(doc_id, gen, ((int(r.idx), r.body) for r in rows))
    if conn.dialect.name == "sqlite":
        rows = conn.execute(text("SELECT idx, body FROM chunks_fts WHERE doc_id = :d"), {"d": doc_id}).fetchall()
        return build(doc_id, gen, ((int(r.idx), r.body) for r in rows))
    rows = conn.execute(text("SELECT idx, text FROM chunks WHERE doc_id = :d"), {"d": doc_id}).fetchall()
    return build(doc_id, gen, ((int(r.idx), index_text(r.text)) for r in rows))


def save(segment: Segment, path: Path) -> None:
    """Write a segment's file (whole or not at all: written aside, then moved into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".segment-", suffix=".npz", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, gen=np.int64(segment.gen), idx=segment.idx, dl=segment.dl, indptr=segment.indptr,
                     rows=segment.rows.astype(np.int32), tf=segment.tf.astype(np.float32),
                     vocab=np.array(list(segment.vocab), dtype=str))
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def read(path: Path, gen: int) -> Segment | None:
    """A segment's file, or None when it is missing, unreadable or of another generation."""
    try:
        with np.load(path) as z:
            if int(z["gen"]) != gen:
                return None
            return Segment(gen, z["idx"], z["dl"], {w: j for j, w in enumerate(z["vocab"].tolist())}, z["indptr"],
                           z["rows"].astype(np.int64), z["tf"].astype(np.float64))
    except Exception:  # noqa: BLE001 - a cache: a damaged file (cut short, not a zip) is removed and built again
        path.unlink(missing_ok=True)
        return None


class Index:
    """The segments of one store, in this process (and their files in ``folder``, when given)."""

    def __init__(self, folder: Path | None = None) -> None:
        self._segments: dict[str, Segment] = {}
        self._lock = threading.Lock()
        self.folder = folder

    def _file(self, doc_id: str, gen: int) -> Path | None:
        return None if self.folder is None else self.folder / f"{doc_id}-{gen}.npz"

    def _keep(self, doc_id: str, segment: Segment) -> None:
        path = self._file(doc_id, segment.gen)
        if path is None or path.exists():
            return
        try:
            save(segment, path)
        except OSError as exc:  # a cache: the next process builds it from the store instead
            log.warning("lexical segment not cached (%s)", exc)

    def put(self, doc_id: str, segment: Segment) -> None:
        with self._lock:
            old = self._segments.get(doc_id)
            self._segments[doc_id] = segment
        self._keep(doc_id, segment)
        if old is not None and old.gen != segment.gen and (path := self._file(doc_id, old.gen)) is not None:
            path.unlink(missing_ok=True)  # a re-index: the replaced generation's file

    def sync(self, engine: Engine, live: dict[str, int], gen_of: Any) -> dict[str, Segment]:
        """The segments of the live documents (doc_id → generation), loading what this process lacks.
        ``gen_of(conn, doc_id)`` reads a document's committed generation: a segment is kept only if the
        generation did not change while its rows were read."""
        with self._lock:
            have = dict(self._segments)
        need = [d for d, g in live.items() if d not in have or have[d].gen != g]
        for d in need:
            path = self._file(d, live[d])
            seg = read(path, live[d]) if path is not None and path.exists() else None
            if seg is not None:
                have[d] = seg
        unread = [d for d in need if d not in have or have[d].gen != live[d]]
        if unread:
            with engine.connect() as c:
                for d in unread:
                    seg = _load(c, d, live[d])
                    if gen_of(c, d) == live[d]:
                        have[d] = seg
                        if len(seg.idx):  # no rows yet (a store before the lexical index): read again next time
                            self._keep(d, seg)
        with self._lock:
            for d in need:
                if d in have and have[d].gen == live[d] and len(have[d].idx):
                    self._segments[d] = have[d]
            gone = [d for d in self._segments if d not in live]
            for d in gone:
                del self._segments[d]
        if need or gone:
            self._tidy(live)
        # never another generation's segment: its chunk indexes would name the new generation's chunks
        return {d: have[d] for d in live if d in have and have[d].gen == live[d]}

    def _tidy(self, live: dict[str, int]) -> None:
        """Remove the files of replaced generations, and of documents gone for an hour (a document committed by
        another process a moment ago is not in ``live`` yet: its file stays)."""
        if self.folder is None or not self.folder.exists():
            return
        now = time.time()
        for path in self.folder.glob("*.npz"):
            doc_id, _, gen = path.stem.rpartition("-")
            stale = live.get(doc_id) is not None and str(live[doc_id]) != gen
            try:
                if stale or (doc_id not in live and now - path.stat().st_mtime > TIDY_AFTER_S):
                    path.unlink(missing_ok=True)
            except OSError:
                continue

    @staticmethod
    def rank(segments: dict[str, Segment], scope: Sequence[str] | None, terms: Sequence[str],
             n: int) -> list[tuple[str, int, float]]:
        """(doc_id, chunk index, score) of the n best chunks in ``scope`` (None: every segment) with at least
        one of ``terms``, best first; statistics over every segment."""
        if not segments or not terms or n < 1:
            return []
        total_rows = sum(len(s.idx) for s in segments.values())
        if not total_rows:
            return []
        avgdl = sum(s.tokens for s in segments.values()) / total_rows
        idf = []
        for t in terms:
            hits = sum(s.df(t) for s in segments.values())
            v = math.log((total_rows - hits + 0.5) / (hits + 0.5))
            idf.append(v if v > 0.0 else IDF_FLOOR)
        found: list[tuple[float, int, str, int]] = []
        for d in (segments if scope is None else [d for d in scope if d in segments]):
            s = segments[d]
            score = np.zeros(len(s.idx))
            hit = np.zeros(len(s.idx), dtype=bool)
            for t, w in zip(terms, idf, strict=True):
                j = s.vocab.get(t)
                if j is None:
                    continue
                rows = s.rows[s.indptr[j]:s.indptr[j + 1]]
                f = s.tf[s.indptr[j]:s.indptr[j + 1]]
                score[rows] += w * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * s.dl[rows] / avgdl)))
                hit[rows] = True
            rows = np.flatnonzero(hit)
            if len(rows) > n:  # the n best, and any chunk tied with the last of them (sorted below)
                rows = rows[score[rows] >= -np.partition(-score[rows], n - 1)[n - 1]]
            found += [(float(score[r]), s.gen, d, int(s.idx[r])) for r in rows]
        # ties as FTS5 orders them: in the order the rows were written (a document's generation, then its chunks)
        found.sort(key=lambda x: (-x[0], x[1], x[2], x[3]))
        return [(d, i, sc) for sc, _, d, i in found[:n]]


_indexes: dict[str, Index] = {}
_indexes_lock = threading.Lock()


def index_for(engine: Engine) -> Index:
    """This process's segments of the store behind ``engine``, cached under NEPAQA_HOME/lexical/ (a folder per
    store)."""
    key = engine.url.render_as_string(hide_password=True)
    folder = config.paths().home / "lexical" / hashlib.sha256(key.encode()).hexdigest()[:12]
    with _indexes_lock:
        return _indexes.setdefault(f"{key}|{folder}", Index(folder))
