"""The lexical (keyword) index beside the vectors, persistent, serving the whole collection.

Stored in SQLite's FTS5 table in the embedded default, and in a tsvector table (GIN index) when
NEPAQA_DATABASE_URL points at PostgreSQL; ranked in memory by bm25.py, as FTS5's bm25() ranks (both modes rank
alike; PostgreSQL's ts_rank is no longer used). Rows are written in the same SQL transaction that
switches a document to its new generation (repository.DocumentRepository.commit), so the lexical index and the chunks never
disagree, survive restarts without a rebuild, and are removed with the document. Chroma's own sparse (BM25)
index is not available in its local mode, so it cannot serve the embedded default.

Each row indexes the chunk's text as the product writes it: the bare text (``title=None``; measured better on
the sample than with the document title and section path in front, which ``context_text`` can add).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select, text
from sqlalchemy.engine import Connection, Engine

from lib.collection import bm25
from lib.collection.bm25 import TERM, index_text
from lib.core.text import tokenize
from lib.documents.chunking import Chunk
from lib.storage import tables

__all__ = ["context_text", "count", "delete", "index_text", "query_terms", "remember", "search", "write"]


def context_text(chunk: Chunk, title: str | None = "") -> str:
    """The chunk with its title and section path in front; ``title=None`` means no context at all."""
    if title is None:
        return chunk.text
    head = " › ".join(x for x in (title, chunk.section) if x)
    return f"{head}\n{chunk.text}" if head else chunk.text


def delete(conn: Connection, doc_id: str) -> None:
    if conn.dialect.name == "sqlite" and bm25.is_token(doc_id):  # its rows found from the index, not by a scan
        conn.execute(text("DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks_fts WHERE chunks_fts "
                          "MATCH :q)"), {"q": bm25.doc_match(doc_id)})
        return
    table = "chunks_fts" if conn.dialect.name == "sqlite" else "chunk_lexemes"
    conn.execute(text(f"DELETE FROM {table} WHERE doc_id = :d"), {"d": doc_id})


def write(conn: Connection, doc_id: str, chunks: Sequence[Chunk], title: str | None = "") -> None:
    """Replace a document's rows (inside the caller's transaction)."""
    delete(conn, doc_id)
    if not chunks:
        return
    rows = [{"d": doc_id, "i": c.index, "b": index_text(context_text(c, title))} for c in chunks]
    if conn.dialect.name == "sqlite":
        conn.execute(text("INSERT INTO chunks_fts (body, doc_id, idx) VALUES (:b, :d, :i)"), rows)
    else:
        conn.execute(text("INSERT INTO chunk_lexemes (doc_id, idx, tsv) VALUES (:d, :i, to_tsvector('simple', :b))"),
                     rows)


def count(engine: Engine, doc_id: str) -> int:
    with engine.connect() as c:
        if engine.dialect.name == "sqlite" and bm25.is_token(doc_id):  # from the index, not a scan of every row
            return int(c.execute(text("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH :q"),
                                 {"q": bm25.doc_match(doc_id)}).scalar() or 0)
        table = "chunks_fts" if engine.dialect.name == "sqlite" else "chunk_lexemes"
        return int(c.execute(text(f"SELECT count(*) FROM {table} WHERE doc_id = :d"), {"d": doc_id}).scalar() or 0)


def query_terms(query: str) -> list[str]:
    return list(dict.fromkeys(t for w in tokenize(query) for t in TERM.findall(w)))


def search(engine: Engine, doc_ids: Iterable[str] | None, query: str, n: int,
           live: dict[str, int] | None = None) -> list[tuple[str, int, float]]:
    """(doc_id, chunk index, score: higher is better) of the n best chunks in scope (None: the whole collection),
    ranked in memory as FTS5's bm25() ranks them (bm25.py). ``live``: every document's committed generation
    (doc_id → gen), which the caller usually has; read from the store when not given."""
    terms = query_terms(query)
    if not terms or n < 1:
        return []
    ids = sorted(set(doc_ids)) if doc_ids is not None else None
    if ids is not None and not ids:
        return []
    if live is None:
        with engine.connect() as c:
            live = {r.doc_id: _gen(r.status) for r in c.execute(select(tables.documents.c.doc_id,
                                                                        tables.documents.c.status))}
    segments = bm25.index_for(engine).sync(engine, live, _committed_gen)
    return bm25.Index.rank(segments, ids, terms, n)


def remember(engine: Engine, doc_id: str, gen: int, chunks: Sequence[Chunk]) -> None:
    """A document just committed: its segment from the text written, so this process's first search over it
    does not read it back."""
    bm25.index_for(engine).put(doc_id, bm25.build(doc_id, gen, ((c.index, index_text(c.text)) for c in chunks)))


def _gen(status: str | None) -> int:
    return int(status.split(":", 1)[1]) if status and ":" in status else 0


def _committed_gen(conn: Connection, doc_id: str) -> int | None:
    status = conn.execute(select(tables.documents.c.status).where(tables.documents.c.doc_id == doc_id)).scalar()
    return None if status is None else _gen(status)
