"""Run manifests: what a run was made with, so a resume never mixes configurations.

A manifest records the concrete model ids and the options actually sent, a hash of each prompt template, the
embedder, chunk size/overlap and index generation of each document used, the judge, and the app version. A
resume whose manifest differs is refused with a message that names each difference.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Engine

from lib.core.errors import UserError
from lib.core.json_types import JSON, JSONObject
from lib.core.version import __version__
from lib.models.base import Provider
from lib.models.embedding import embedder_label
from lib.qa.services import Corpus
from lib.storage import tables
from lib.storage.engine import get_engine


@dataclass(frozen=True)
class DocumentEntry:
    """A document a run read, as it was when the run read it."""

    doc_id: str
    name: str | None
    sha256: str | None
    gen: int | None  # the index generation
    chunk_size: int | None
    chunk_overlap: int | None


@dataclass
class Manifest:
    """What a run was made with. ``settings`` are the run kind's own (an exam's shots and split, a benchmark's
    modes and k, an Ask batch's scope), as JSON. Stored as JSON with these keys; ``semantic_embedder`` and
    ``rescored`` only where they say something."""

    kind: str  # bench | exam | ask
    app_version: str | None = None
    models: list[JSONObject] = field(default_factory=list)  # Provider.manifest_entry: id, options sent, …
    judge: JSONObject | None = None
    prompts: dict[str, str] = field(default_factory=dict)  # template name → hash
    embedder: str | None = None
    documents: list[DocumentEntry] = field(default_factory=list)
    settings: JSONObject = field(default_factory=dict)
    semantic_embedder: str | None = None  # the model semantic scores were made with (benchmarks)
    rescored: list[JSONObject] = field(default_factory=list)  # each re-scoring of the run: what changed, when
    extra: JSONObject = field(default_factory=dict)  # keys written by another version, kept as read

    def as_json(self) -> JSONObject:
        """As stored: every object's keys sorted (as the store has always written them)."""
        out: JSONObject = {"kind": self.kind, "app_version": self.app_version, "models": list(self.models),
                           "judge": self.judge, "prompts": dict(self.prompts), "embedder": self.embedder,
                           "documents": [dataclasses.asdict(d) for d in self.documents],
                           "settings": dict(self.settings)}
        if self.semantic_embedder:
            out["semantic_embedder"] = self.semantic_embedder
        if self.rescored:
            out["rescored"] = list(self.rescored)
        return json.loads(json.dumps(self.extra | out, sort_keys=True))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Manifest:
        known = {f.name for f in dataclasses.fields(cls)} - {"extra", "documents"}
        docs = [DocumentEntry(**{f.name: d.get(f.name) for f in dataclasses.fields(DocumentEntry)})
                for d in data.get("documents") or []]
        fields = {k: v for k, v in data.items() if k in known and v is not None}
        return cls(**{"kind": ""} | fields, documents=docs,
                   extra={k: v for k, v in data.items() if k not in known and k != "documents"})


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def prompt_hashes(templates: Mapping[str, str]) -> dict[str, str]:
    return {name: text_hash(t) for name, t in sorted(templates.items())}


def document_entries(services: Corpus, doc_ids: Iterable[str], engine: Engine | None = None) -> list[DocumentEntry]:
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
        out.append(DocumentEntry(doc_id, info.name, sha.get(doc_id), info.gen, info.chunk_size, info.chunk_overlap))
    return out


def embedder_name(services: Corpus | None = None) -> str:
    """The embedder as a run uses it, without loading it: name and backend (the same model embeds the query and
    the documents). Runs made when int8 results were re-scored with fp32 vectors say ", exact re-scoring": their
    retrieval ranked differently, so they are not resumed with today's."""
    return embedder_label()


def build(kind: str, models: Iterable[Provider], *, prompts: Mapping[str, str], judge: Provider | None = None,
          documents: list[DocumentEntry] | None = None, embedder: str | None = None,
          semantic_embedder: str | None = None, settings: Mapping[str, JSON] | None = None) -> Manifest:
    return Manifest(kind, __version__, [m.manifest_entry() for m in models],
                    judge.manifest_entry() if judge is not None else None, prompt_hashes(prompts), embedder,
                    list(documents or []), dict(settings or {}), semantic_embedder)


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


def save(run_id: str, kind: str, manifest: Manifest, engine: Engine | None = None) -> None:
    engine = engine or get_engine()
    t = tables.run_manifests
    text = json.dumps(manifest.as_json(), sort_keys=True)
    with engine.begin() as c:
        if c.execute(select(t.c.run_id).where(t.c.run_id == run_id)).first() is None:
            c.execute(insert(t).values(run_id=run_id, kind=kind, manifest=text))
        else:
            c.execute(update(t).where(t.c.run_id == run_id).values(manifest=text))


def _stored(run_id: str, engine: Engine | None) -> dict[str, Any] | None:
    """The manifest as stored (JSON), as written."""
    engine = engine or get_engine()
    t = tables.run_manifests
    with engine.connect() as c:
        r = c.execute(select(t.c.manifest).where(t.c.run_id == run_id)).first()
    return json.loads(r.manifest) if r else None


def load(run_id: str, engine: Engine | None = None) -> Manifest | None:
    """What a run was made with, as it was recorded (an older run's entries in its own terms: see ``_upgrade``)."""
    stored = _stored(run_id, engine)
    return None if stored is None else Manifest.from_json(stored)


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
    stored = _stored(run_id, engine)
    made = None if stored is None else _upgrade(stored).get("semantic_embedder")
    return made if made and made != current else None


def check_resume(run_id: str, kind: str, current: Manifest, engine: Engine | None = None,
                 ignore: Iterable[str] = ()) -> None:
    """Refuse (UserError) a resume whose configuration differs from the stored manifest; store it when the run
    has none yet (a run made before manifests existed keeps the first one seen). The stored JSON is compared as
    it was written, so a key another version wrote counts too."""
    stored = _stored(run_id, engine)
    if stored is None:
        save(run_id, kind, current, engine)
        return
    stored = _upgrade(stored)
    skip = tuple(ignore)
    new = current.as_json()
    diffs = [d for d in differences(stored, new) if not d.startswith(skip)] if skip else differences(stored, new)
    if diffs:
        listed = "; ".join(diffs[:8]) + (f"; and {len(diffs) - 8} more" if len(diffs) > 8 else "")
        hint = "Start a new run instead (or restore the original settings)."
        if any("exact re-scoring" in d or d.startswith("semantic_embedder") for d in diffs):
            hint = ("This run's search re-scored int8 results with fp32 vectors, or scored meaning with another "
                    "model; this version does neither, and no setting turns that back: start a new run instead.")
        raise UserError(f"Run '{run_id}' was made with another configuration, so resuming it would mix results. "
                        f"Differences: {listed}. {hint}")
