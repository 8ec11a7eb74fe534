"""The ids of chunk vectors: document, generation and chunk index in one string (no heavy imports here)."""
from __future__ import annotations


def chunk_id(doc_id: str, gen: int, idx: int) -> str:
    """A chunk vector's id: the document, its generation and the chunk's index, so a hit names all three."""
    return f"{doc_id}-{gen}-{idx}"


def parse_chunk_id(cid: str) -> tuple[str, int, int] | None:
    doc_id, _, rest = cid.rpartition("-")
    doc_id, _, gen = doc_id.rpartition("-")
    try:
        return doc_id, int(gen), int(rest)
    except ValueError:
        return None
