"""Exact re-scoring of dense search over int8 vectors.

The default embedder backend (NEPAQA_EMBED_BACKEND=onnx-int8) ingests about 3× faster than the stock pipeline,
and its vectors are close to the exact model's (cosine 0.993 on average) but not equal: close enough for the
right chunk to stay near the top, not close enough to keep the order of chunks whose scores nearly tie. On a
600-page EIS, int8 vectors alone changed the hybrid top 3 for about half the questions (bench/rescoring.py). So a
dense search over int8 vectors:

1. embeds the query with the exact (fp32) model;
2. takes the int8 index's ``DEPTH`` × n nearest chunks as candidates;
3. scores every candidate with the exact model's vector of that chunk, kept in the SQL store (``exact_vectors``);
   a candidate whose exact vector is not made yet keeps its score against the int8 index (the exact query's
   cosine to the int8 vector), so a search never embeds a chunk: the first search after an ingest is as fast as
   the hundredth;
4. returns the n best.

The exact vectors are made after each ingest by a background job (``fill``; lib/app/job_handlers.py queues it,
and it gives way to any ingest waiting), or by ``python -m lib prepare-search``. Until a document's fill is done,
its ranking is the exact query's over the int8 index (bench/search_options.py: hit@3 below the exact index on a
few sets, by 1–3 questions); once done, it is the exact index's. A balanced search's per-document top-ups keep
int8 scores (retriever.py). Documents indexed with an exact backend (onnx, torch) are searched as before: this
applies only while the configured backend is onnx-int8.
"""
from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import and_, func, select
from sqlalchemy.exc import DBAPIError, IntegrityError

from lib.collection import ingest
from lib.collection.vectors import query_scope
from lib.core import config
from lib.models.embedding import default_model_path, embedder_name, get_exact_embedder
from lib.models.embedding_onnx import cache_folder
from lib.storage import tables
from lib.storage.engine import upsert

DEPTH = 2  # candidates per wanted result: at 2, results agree with the exact index as two builds of it agree
ENABLED = True  # bench/rescoring.py turns it off to measure int8 alone
SAVE_WAIT_MS = 1000  # how long storing new exact vectors waits for another SQLite writer before giving up

log = logging.getLogger(__name__)


def _on() -> bool:
    """Re-scoring is on, and the embedded text is the bare chunk text (what the store keeps)."""
    return ENABLED and not ingest.CONTEXTUAL


def applies(index: Any) -> bool:
    """Whether dense search over this index re-scores: int8 vectors, and re-scoring on."""
    return _on() and getattr(index.embedder, "backend", "") == "onnx-int8"


def manifest_label(embedder_label: str) -> str:
    """"all-MiniLM-L6-v2 (onnx-int8)" → "all-MiniLM-L6-v2 (onnx-int8, exact re-scoring)" where re-scoring applies:
    a run's manifest names what its retrieval was made with (its semantic scores have their own entry)."""
    if _on() and embedder_label.endswith("(onnx-int8)"):
        return embedder_label[:-1] + ", exact re-scoring)"
    return embedder_label


def exact_model(index: Any) -> Any:
    return get_exact_embedder(getattr(index.embedder, "_model", None))


def dense(docs: Any, live: dict[str, int], sizes: dict[str, int], query: str, n: int,
          whole: bool) -> list[tuple[str, int, float]]:
    """(doc_id, chunk index, cosine) of the n best chunks: the int8 index's candidates for the exact query, each
    scored with its chunk's stored exact vector where there is one (its int8 cosine where there is not yet)."""
    exact = exact_model(docs.index)
    q = exact.embed_query(query)
    total = sum(sizes.values()) if sizes else None
    depth = n * DEPTH if total is None else min(total, n * DEPTH)
    candidates = query_scope(docs.index, live, q, depth, whole_collection=whole, sizes=sizes)
    vecs, gone = stored(docs.engine, exact, [(d, i) for d, i, _ in candidates])
    scored = [(d, i, float(vecs[(d, i)] @ q) if (d, i) in vecs else s) for d, i, s in candidates
              if (d, i) not in gone]
    scored.sort(key=lambda x: (-x[2], x[0], x[1]))
    # chunks gone from the store meanwhile (a re-index or delete) go last; the retriever drops them when it
    # fetches the chunks, and an empty list here would read as "vectors not visible"
    scored += [c for c in candidates if (c[0], c[1]) in gone]
    return scored[:n]


def label(exact: Any) -> str:
    """The key stored vectors are kept under: the exact export's cache folder, which names the model and hashes
    its path, weights and export recipe (two models with the same folder name never share vectors)."""
    path = getattr(exact, "model_path", None)
    if not path:
        return f"{exact.name} ({getattr(exact, 'backend', '')})"
    return f"{exact.name} (onnx {Path(path).parent.parent.name.rsplit('-', 1)[-1]})"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Vectors made or read lately in this process, keyed by (model, doc_id, idx, text sha): benchmark workers that
# reach the same new chunks at once embed them once (under _making), and repeated searches skip the read. Capped
# by size, least recently used first out.
RECENT_BYTES = 32 * 2**20
UNSAVED_MAX = 50  # batches of refused writes kept for a later search
_recent: OrderedDict[tuple[str, str, int, str], Any] = OrderedDict()
_recent_lock = threading.Lock()
_making = threading.Lock()
# Vectors whose write the store refused (busy): written by the next search that finds the store free.
_unsaved: list[tuple[Any, str, list[tuple[tuple[str, int], str, Any]]]] = []


def _remember(key: tuple[str, str, int, str], vec: Any) -> None:
    with _recent_lock:
        _recent[key] = vec
        _recent.move_to_end(key)
        while len(_recent) * vec.nbytes > RECENT_BYTES:
            _recent.popitem(last=False)


def _recalled(key: tuple[str, str, int, str]) -> Any:
    with _recent_lock:
        v = _recent.get(key)
        if v is not None:
            _recent.move_to_end(key)
        return v


def _store(engine: Any, model: str, rows: list[tuple[tuple[str, int], str, Any]]) -> None:
    """Write new vectors, and any an earlier search could not write; keep what the store refuses for later."""
    with _recent_lock:
        pending = [p for p in _unsaved if p[0] is engine]
        _unsaved[:] = [p for p in _unsaved if p[0] is not engine]
    for _, m, r in pending + ([(engine, model, rows)] if rows else []):
        if not _save(engine, m, r):
            with _recent_lock:
                _unsaved.append((engine, m, r))
                del _unsaved[:-UNSAVED_MAX]  # the oldest are made again when needed


def _texts(engine: Any, keys: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
    t = tables.chunks
    with engine.connect() as c:
        return {(r.doc_id, r.idx): r.text for r in c.execute(select(t.c.doc_id, t.c.idx, t.c.text)
                                                             .where(tables.chunk_keys(t, keys)))}


def _read(engine: Any, model: str, shas: dict[tuple[str, int], str],
          recall: bool = True) -> dict[tuple[str, int], Any]:
    """The stored exact vectors of these chunks whose text still matches its sha (and, with ``recall``, those
    this process read or made lately, which the store may no longer hold: a document deleted and added again)."""
    out: dict[tuple[str, int], Any] = {}
    for key, sha in shas.items():
        v = _recalled((model, *key, sha)) if recall else None
        if v is not None:
            out[key] = v
    rest = [k for k in shas if k not in out]
    if rest:
        ev = tables.exact_vectors
        with engine.connect() as c:
            for r in c.execute(select(ev.c.doc_id, ev.c.idx, ev.c.text_sha, ev.c.vector)
                               .where(and_(ev.c.model == model, tables.chunk_keys(ev, rest)))):
                key = (r.doc_id, r.idx)
                if r.text_sha == shas.get(key):
                    out[key] = np.frombuffer(r.vector, dtype="<f4")
                    _remember((model, *key, r.text_sha), out[key])
    return out


def stored(engine: Any, exact: Any, keys: list[tuple[str, int]]) -> tuple[dict[tuple[str, int], Any],
                                                                           set[tuple[str, int]]]:
    """The exact vectors already made for these chunks (nothing is embedded here: this is the search path), and
    the chunks no longer in the store (their document deleted or re-indexed meanwhile)."""
    keys = list(dict.fromkeys(keys))
    if not keys:
        return {}, set()
    texts = _texts(engine, keys)
    return _read(engine, label(exact), {key: _sha(text) for key, text in texts.items()}), set(keys) - set(texts)


def vectors(engine: Any, exact: Any, keys: list[tuple[str, int]]) -> dict[tuple[str, int], Any]:
    """Exact vectors of these chunks: stored ones whose text still matches, the rest embedded now and stored
    (the fill's step). A chunk no longer in the store (its document deleted or re-indexed meanwhile) is left out."""
    keys = list(dict.fromkeys(keys))
    if not keys:
        return {}
    if _unsaved:
        _store(engine, "", [])
    model = label(exact)
    texts = _texts(engine, keys)
    shas = {key: _sha(text) for key, text in texts.items()}
    out = _read(engine, model, shas, recall=False)  # what the store holds: the rest is written below
    missing = [k for k in shas if k not in out]
    if missing:
        with _making:  # another thread may be making some of these right now (or made them lately): take theirs
            for key in missing:
                v = _recalled((model, *key, shas[key]))
                if v is not None:
                    out[key] = v
            made_now = [k for k in missing if k not in out]
            if made_now:
                made = exact.embed([texts[k] for k in made_now]).astype("<f4")
                for key, v in zip(made_now, made, strict=True):
                    out[key] = v
                    _remember((model, *key, shas[key]), v)
        _store(engine, model, [(k, shas[k], out[k]) for k in missing])
    return out


def _save(engine: Any, model: str, rows: list[tuple[tuple[str, int], str, Any]]) -> bool:
    """Store new exact vectors; False when the store refuses. This is a cache, written from the search path
    without a lease: a row names the text it was made from (its sha), so a row written for a chunk that was
    re-indexed meanwhile never matches. A search waits at most SAVE_WAIT_MS for another writer (SQLite's busy
    timeout, PostgreSQL's lock timeout); refused, it still has its vectors, and _store writes them later."""
    rows = sorted(rows, key=lambda r: r[0])  # one lock order for concurrent writers (PostgreSQL)
    values = [{"doc_id": d, "idx": i, "model": model, "text_sha": sha, "vector": v.tobytes()} for (d, i), sha, v in rows]
    stmt = upsert(engine, tables.exact_vectors, values, ("doc_id", "idx", "model"), ("text_sha", "vector"))
    try:
        with engine.begin() as c:
            if engine.dialect.name == "sqlite":
                before = int(c.exec_driver_sql("PRAGMA busy_timeout").scalar())
                c.exec_driver_sql(f"PRAGMA busy_timeout={SAVE_WAIT_MS}")
                try:
                    c.execute(stmt)
                finally:
                    c.exec_driver_sql(f"PRAGMA busy_timeout={before}")
            else:
                c.exec_driver_sql(f"SET LOCAL lock_timeout = '{SAVE_WAIT_MS}ms'")
                c.execute(stmt)
        return True
    except IntegrityError:  # the document was deleted meanwhile: nothing to keep
        return True
    except DBAPIError as exc:
        log.warning("exact vectors not stored (%s); they are stored by a later search", type(exc.orig).__name__)
        return False


def coverage(engine: Any, doc_id: str, exact_label: str) -> int:
    """How many of a document's chunks have a stored exact vector."""
    ev = tables.exact_vectors
    with engine.connect() as c:
        return int(c.execute(select(func.count()).select_from(ev).where(and_(ev.c.doc_id == doc_id,
                                                                            ev.c.model == exact_label))).scalar())


def label_unloaded(index: Any) -> str:
    """``label(exact_model(index))`` without loading the model (a page that only counts must not wait seconds
    for it): the name and the exact export's cache key, computed from the model folder."""
    model = getattr(index.embedder, "_model", None)
    folder = model or config.get("NEPAQA_EMBED_MODEL") or default_model_path()
    key = cache_folder(Path(folder), "onnx").parent.name.rsplit("-", 1)[-1]
    return f"{embedder_name(model)} (onnx {key})"


def prepared(docs: Any) -> tuple[int, int]:
    """(chunks with their exact vector, chunks in all) over the collection, where re-scoring applies: (0, 0)
    where it does not. A document's vectors go with it when it is re-indexed or deleted, so a count is enough."""
    if not applies(docs.index):
        return 0, 0
    total = sum(d.chunks for d in docs.list())
    ev = tables.exact_vectors
    with docs.engine.connect() as c:
        made = int(c.execute(select(func.count()).select_from(ev)
                             .where(ev.c.model == label_unloaded(docs.index))).scalar() or 0)
    return min(made, total), total


FILL_BATCH = 64  # chunks embedded exactly per step of a fill (a step is the most a fill makes anything wait)


def missing(docs: Any, doc_id: str) -> list[int]:
    """Chunk indexes of a document's live chunks without a stored exact vector for their current text."""
    exact = exact_model(docs.index)
    model = label(exact)
    t, ev = tables.chunks, tables.exact_vectors
    with docs.engine.connect() as c:
        texts = {r.idx: _sha(r.text) for r in c.execute(select(t.c.idx, t.c.text).where(t.c.doc_id == doc_id))}
        have = {r.idx: r.text_sha for r in c.execute(select(ev.c.idx, ev.c.text_sha).where(
            and_(ev.c.doc_id == doc_id, ev.c.model == model)))}
    return sorted(i for i, sha in texts.items() if have.get(i) != sha)


def fill(docs: Any, doc_ids: list[str] | None = None, progress: Any = None,
         stop: Any = None) -> dict[str, int]:
    """Make and store the exact vector of every chunk that lacks one (``doc_ids``: those documents; None: all),
    FILL_BATCH chunks a step, so that later searches re-score without embedding anything. ``stop()`` is asked
    between steps (a caller yields to other work by returning True; what was stored stays, and the next fill goes
    on from there). ``progress(stage, fraction, message)`` as elsewhere. Returns counts: made, already there,
    chunks in all, and left (still missing from the store afterwards: writes it refused)."""
    if not applies(docs.index):
        return {"made": 0, "present": 0, "chunks": 0, "left": 0}
    exact = exact_model(docs.index)
    ids = doc_ids if doc_ids is not None else [d.doc_id for d in docs.list()]
    todo = {d: missing(docs, d) for d in ids}
    total_chunks = sum(d.chunks for d in docs.list() if d.doc_id in set(ids))
    need = sum(len(v) for v in todo.values())
    made = 0
    for doc_id, idxs in todo.items():
        for start in range(0, len(idxs), FILL_BATCH):
            if stop is not None and stop():
                return {"made": made, "present": total_chunks - need, "chunks": total_chunks, "stopped": 1,
                        "left": need - made}
            vectors(docs.engine, exact, [(doc_id, i) for i in idxs[start:start + FILL_BATCH]])
            made += len(idxs[start:start + FILL_BATCH])
            if progress is not None:
                progress("exact vectors", made / need if need else 1.0, f"{made:,} of {need:,} passages prepared")
    left = sum(len(missing(docs, d)) for d in ids) if made else 0  # what the store still lacks (refused writes)
    return {"made": made, "present": total_chunks - need, "chunks": total_chunks, "left": left}
