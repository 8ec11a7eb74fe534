"""Context builders for the four modes: none, full PDF (cut to the window), RAG (top-k chunks) and gold."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .errors import UserError
from .pdf import Page

MODES = ("none", "pdf", "rag", "gold")
MODE_LABELS = {"none": "No context", "pdf": "Full PDF", "rag": "RAG", "gold": "Gold passage"}


@dataclass
class Context:
    mode: str
    text: str = ""
    passages: list[dict] = field(default_factory=list)  # {"page_start", "page_end", "text"}
    truncated: bool = False
    kept_fraction: float = 1.0
    total_tokens: int = 0
    kept_tokens: int = 0

    def notice(self) -> str | None:
        if not self.truncated:
            return None
        return f"truncated: kept {self.kept_fraction:.0%} of {_short(self.total_tokens)} tokens"


def _short(n: int) -> str:
    return f"{n / 1000:.0f}K" if n >= 10_000 else f"{n:,}"


def none_context() -> Context:
    return Context("none")


def gold_context(passage: str | None) -> Context:
    if not passage or not passage.strip():
        raise UserError("Gold mode needs a passage: paste one, or pick a NEPAQuAD item.")
    return Context("gold", text=passage.strip(), passages=[{"page_start": None, "page_end": None, "text": passage.strip()}])


def rag_context(hits: Sequence) -> Context:
    """Chunks in retrieval order, each headed by its pages, so the answer can cite them."""
    parts, passages = [], []
    for h in hits:
        c = h.chunk
        pages = f"page {c.page_start}" if c.page_start == c.page_end else f"pages {c.page_start}-{c.page_end}"
        parts.append(f"[{pages}]\n{c.text}")
        passages.append({"page_start": c.page_start, "page_end": c.page_end, "text": c.text, "score": round(h.score, 4)})
    return Context("rag", text="\n\n".join(parts), passages=passages)


def truncate_to_tokens(text: str, budget: int, count_tokens: Callable[[str], int]) -> tuple[str, int]:
    """The longest word-boundary prefix of ``text`` with at most ``budget`` tokens, and its token count."""
    if budget <= 0 or not text:
        return "", 0
    n = count_tokens(text)
    if n <= budget:
        return text, n
    words = text.split(" ")
    lo, hi = 0, len(words)
    # Binary search on the number of words; start near the proportional guess to save tokenizer calls.
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(" ".join(words[:mid])) <= budget:
            lo = mid
        else:
            hi = mid - 1
    kept = " ".join(words[:lo]).rstrip()
    return kept, count_tokens(kept) if kept else 0


def pdf_context(pages: Sequence[Page], budget: int, count_tokens: Callable[[str], int]) -> Context:
    """All page text, whole pages first, then a word-boundary cut of the page that crosses the budget."""
    texts = [f"[page {p.number}]\n{p.text}" for p in pages if p.text]
    counts = [count_tokens(t) for t in texts]
    total = sum(counts)
    kept_parts: list[str] = []
    used = 0
    for text, n in zip(texts, counts, strict=True):
        if used + n <= budget:
            kept_parts.append(text)
            used += n
            continue
        part, m = truncate_to_tokens(text, budget - used, count_tokens)
        if part:
            kept_parts.append(part)
            used += m
        break
    truncated = used < total
    return Context(
        "pdf", text="\n\n".join(kept_parts), truncated=truncated,
        kept_fraction=(used / total) if total else 1.0, total_tokens=total, kept_tokens=used,
        passages=[{"page_start": pages[0].number if pages else None,
                   "page_end": pages[-1].number if pages else None,
                   "text": f"{len(kept_parts)} page(s) of text, {used:,} tokens"}],
    )
