"""Builds the heavy, shared objects (embedder, Chroma client, stores) once per process."""
from __future__ import annotations

from dataclasses import dataclass

from . import config
from .documents import DocumentStore
from .index import get_index
from .retrieval import Retriever


@dataclass
class Services:
    docs: DocumentStore
    retriever: Retriever


_cache: dict[tuple[str, str, str], Services] = {}


def get_services() -> Services:
    """One set per (home, Chroma URL, embedding model); the pages also hold it in st.cache_resource."""
    key = (str(config.paths().home), config.get("NEPAQA_CHROMA_URL") or "", config.get("NEPAQA_EMBED_MODEL") or "")
    if key not in _cache:
        index = get_index(key[1], str(config.paths().chroma), key[2] or None)
        docs = DocumentStore(index)
        _cache[key] = Services(docs=docs, retriever=Retriever(docs))
    return _cache[key]
