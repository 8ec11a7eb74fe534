"""Run manifests: what a run was made with, so a resume never mixes configurations.

A manifest records the concrete model ids and the options actually sent, a hash of each prompt template, the
embedder, chunk size/overlap and index generation of each document used, the judge, and the app version. A
resume whose manifest differs is refused with a message that names each difference.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Engine

from lib.core.errors import UserError
from lib.core.version import __version__
from lib.models.base import Provider
from lib.models.embedding import embedder_label
from lib.qa.services import Corpus
from lib.storage import tables
from lib.storage.engine import get_engine


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def prompt_hashes(templates: Mapping[str, str]) -> dict[str, str]:
    return {name: text_hash(t) for name, t in sorted(templates.items())}


def document_entries(services: Corpus, doc_ids: Iterable[str], engine: Engine | None = None) -> list[dict[str, Any]]:
    """sha256, index generation and chunking of each document a run reads."""
    engine = engine or get_engine()
    ids = sorted(set(d for d in doc_ids if d))
    if not ids:
        return []
    t = tables.documents
    with engine.connect() as c:
        sha = {r.doc_id: r.sha256 for r in c.execute(select(t.c.doc_id, t.c.sha256).where(t.c.doc_id.in_(ids)))}
    out = []
    for doc_id in ids:
        info = services.docs.get(doc_id)
        out.append({"doc_id": doc_id, "name": info.name, "sha256": sha.get(doc_id), "gen": info.gen,
                    "chunk_size": info.chunk_size, "chunk_overlap": info.chunk_overlap})
    return out


def embedder_name(services: Corpus | None = None) -> str:
    """The embedder as a run uses it, without loading it: name and backend (the same model embeds the query and
    the documents). Runs made when int8 results were re-scored with fp32 vectors say ", exact re-scoring": their
    retrieval ranked differently, so they are not resumed with today's."""
    return embedder_label()


def build(kind: str, models: Iterable[Provider], *, prompts: Mapping[str, str], judge: Provider | None = None,
          documents: list[dict[str, Any]] | None = None, embedder: str | None = None,
          semantic_embedder: str | None = None, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    extra = {"semantic_embedder": semantic_embedder} if semantic_embedder else {}
    return extra | {
        "kind": kind,
        "app_version": __version__,
        "models": [m.manifest_entry() for m in models],
        "judge": judge.manifest_entry() if judge is not None else None,
        "prompts": prompt_hashes(prompts),
        "embedder": embedder,
        "documents": documents or [],
        "settings": dict(settings or {}),
    }


def differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Human-readable differences, e.g. "models[0].options.temperature: 0.0 → 0.7"."""
    out: list[str] = []
    for key in sorted(set(old) | set(new)):
        path = f"{prefix}{key}"
        a, b = old.get(key), new.get(key)
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            out += differences(a, b, path + ".")
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
                isinstance(x, Mapping) and isinstance(y, Mapping) for x, y in zip(a, b, strict=True)):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                out += differences(x, y, f"{path}[{i}].")
        elif a != b:
            out.append(f"{path}: {json.dumps(a, default=str)} → {json.dumps(b, default=str)}")
    return out


def save(run_id: str, kind: str, manifest: Mapping[str, Any], engine: Engine | None = None) -> None:
    engine = engine or get_engine()
    t = tables.run_manifests
    with engine.begin() as c:
        if c.execute(select(t.c.run_id).where(t.c.run_id == run_id)).first() is None:
            c.execute(insert(t).values(run_id=run_id, kind=kind, manifest=json.dumps(manifest, sort_keys=True)))
        else:
            c.execute(update(t).where(t.c.run_id == run_id).values(manifest=json.dumps(manifest, sort_keys=True)))


def load(run_id: str, engine: Engine | None = None) -> dict[str, Any] | None:
    engine = engine or get_engine()
    t = tables.run_manifests
    with engine.connect() as c:
        r = c.execute(select(t.c.manifest).where(t.c.run_id == run_id)).first()
    return json.loads(r.manifest) if r else None


def _upgrade(stored: Mapping[str, Any]) -> dict[str, Any]:
    """Read a manifest written by an earlier version in today's terms: an embedder recorded by name alone ran on
    torch (the only backend then), so it equals "<name> (torch)" now. A resume under the int8 default is still
    refused, since its vectors differ; with NEPAQA_EMBED_BACKEND=torch it goes on."""
    out = dict(stored)
    emb = out.get("embedder")
    if isinstance(emb, str) and emb and not emb.endswith(")"):
        out["embedder"] = f"{emb} (torch)"
    emb = out.get("embedder")
    if out.get("kind") == "bench" and "semantic_embedder" not in out and isinstance(emb, str) and emb:
        # before the semantic metrics had their own (exact) model, they used the ingest embedder
        # (runs made with re-scoring before this entry existed already used the exact model)
        out["semantic_embedder"] = (emb.split(" (")[0] + " (onnx)") if emb.endswith(", exact re-scoring)") else emb
    return out


def semantic_embedder_changed(run_id: str, current: str, engine: Engine | None = None) -> str | None:
    """The model a run's semantic scores were made with, when it is not ``current`` (None when the same)."""
    stored = load(run_id, engine)
    if stored is None:
        return None
    made = _upgrade(stored).get("semantic_embedder")
    return made if made and made != current else None


def check_resume(run_id: str, kind: str, current: Mapping[str, Any], engine: Engine | None = None,
                 ignore: Iterable[str] = ()) -> None:
    """Refuse (UserError) a resume whose configuration differs from the stored manifest; store it when the run
    has none yet (a run made before manifests existed keeps the first one seen)."""
    stored = load(run_id, engine)
    if stored is None:
        save(run_id, kind, current, engine)
        return
    stored = _upgrade(stored)
    skip = tuple(ignore)
    diffs = [d for d in differences(stored, current) if not d.startswith(skip)] if skip else differences(stored, current)
    if diffs:
        listed = "; ".join(diffs[:8]) + (f"; and {len(diffs) - 8} more" if len(diffs) > 8 else "")
        hint = "Start a new run instead (or restore the original settings)."
        if any("exact re-scoring" in d or d.startswith("semantic_embedder") for d in diffs):
            hint = ("This run's search re-scored int8 results with fp32 vectors, or scored meaning with another "
                    "model; this version does neither, and no setting turns that back: start a new run instead.")
        raise UserError(f"Run '{run_id}' was made with another configuration, so resuming it would mix results. "
                        f"Differences: {listed}. {hint}")
