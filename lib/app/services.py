"""The shared objects every command and page works with (the vector index, opened on first use; the document
store; the retriever), built once per process and home."""
from __future__ import annotations

from dataclasses import dataclass

from lib.collection.document_store import DocumentStore
from lib.collection.vectors import get_index
from lib.core import config
from lib.retrieval.retriever import Retriever
from lib.storage.engine import database_url


class LazyIndex:
    """The vector index, opened on first use: listing documents or metadata never starts Chroma."""

    def __init__(self, url: str, path: str, model: str | None) -> None:
        self._args = (url, path, model)

    def __getattr__(self, attr: str):  # noqa: ANN204 - delegates to the real VectorIndex
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(get_index(*self._args), attr)


@dataclass
class Services:
    docs: DocumentStore
    retriever: Retriever


_cache: dict[tuple[str, str, str, str], Services] = {}


def get_services() -> Services:
    """One set per (home, Chroma URL, embedding model, database); the pages also hold it in st.cache_resource."""
    key = (str(config.paths().home), config.get("NEPAQA_CHROMA_URL") or "", config.get("NEPAQA_EMBED_MODEL") or "",
           database_url())
    if key not in _cache:
        index = LazyIndex(key[1], str(config.paths().chroma), key[2] or None)
        docs = DocumentStore(index)  # type: ignore[arg-type]
        _cache[key] = Services(docs=docs, retriever=Retriever(docs))
    return _cache[key]
