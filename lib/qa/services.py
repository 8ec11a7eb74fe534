"""What question answering, and the layers above it, need of the app's services: the document store and the
retriever over it (``Corpus``). ``lib/app/services.py`` provides them; this layer names only what it uses."""
from __future__ import annotations

from typing import Protocol

from lib.collection.document_store import DocumentStore
from lib.retrieval.retriever import Retriever


class Corpus(Protocol):
    """The documents and the search over them, as one process holds them."""

    @property
    def docs(self) -> DocumentStore: ...

    @property
    def retriever(self) -> Retriever: ...
