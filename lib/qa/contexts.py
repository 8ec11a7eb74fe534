"""Context builders for the four modes: none, full PDF (cut to the window), RAG (top-k chunks) and gold."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from lib.core.context_text import document_block, document_header, page_block, source_block
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.documents.mentions import DocRef
from lib.documents.pdf import Page
from lib.qa.citations import number_sources
from lib.qa.context_passage import ContextPassage

MODES = ("none", "pdf", "rag", "gold")
MODE_LABELS = {"none": "No context", "pdf": "Full PDF", "rag": "Retrieved passages (RAG)", "gold": "Gold passage"}


@dataclass(frozen=True)
class ComparedDocuments:
    """RAG over several documents: the documents a comparison question concerns and why (retrieval.Comparison:
    "named", the question names them; "together", it speaks of them together; "" when it compares nothing), and
    every document in scope. The support check holds an answer's claims to these documents."""

    why: str
    documents: tuple[DocRef, ...]  # the compared documents
    scope: tuple[DocRef, ...] = ()  # every document the search covered

    def in_view(self) -> list[DocRef]:
        """The documents the support check holds claims to: every one in scope, else the compared ones."""
        return list(self.scope or self.documents)

    def compared_ids(self) -> list[str] | None:
        """The documents compared, which "both EISs" in an answer means; None: the question compares nothing."""
        return [d.doc_id for d in self.documents] if self.why else None

    def as_dict(self) -> JSONObject:
        """As the CLI prints it and a batch's record keeps it."""
        return {"why": self.why, "documents": [d.as_dict() for d in self.documents],
                "scope": [d.as_dict() for d in self.scope]}

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> ComparedDocuments:
        def refs(key: str) -> tuple[DocRef, ...]:
            raw = d.get(key)
            return tuple(DocRef.from_dict(r) for r in raw if isinstance(r, Mapping) and "doc_id" in r
                         and "name" in r) if isinstance(raw, list) else ()
        return cls(str(d.get("why") or ""), refs("documents"), refs("scope"))


@dataclass
class Context:
    mode: str
    text: str = ""
    passages: list[ContextPassage] = field(default_factory=list)  # what the model is given, as stored
    truncated: bool = False
    kept_fraction: float = 1.0
    total_tokens: int = 0
    kept_tokens: int = 0
    parts: list[str] = field(default_factory=list)  # RAG: one block per passage, in order
    per_document: str = ""  # several documents: what was kept of each
    documents: int = 1  # how many documents the scope held (RAG): with several, answers name each source's
    comparison: ComparedDocuments | None = None  # RAG over several documents: what the support check holds claims to

    def notice(self, unit: str = "") -> str | None:
        """'truncated: kept 38% of 612K tokens', with how the model's tokens were counted where ``unit`` says."""
        if not self.truncated:
            return None
        note = f"truncated: kept {self.kept_fraction:.0%} of {_short(self.total_tokens)} tokens"
        note += f" ({unit})" if unit else ""
        return f"{note} ({self.per_document})" if self.per_document else note


def _short(n: int) -> str:
    return f"{n / 1000:.0f}K" if n >= 10_000 else f"{n:,}"


def none_context() -> Context:
    return Context("none")


def gold_context(passage: str | None) -> Context:
    if not passage or not passage.strip():
        raise UserError("Gold mode needs a passage: paste one, or pick a NEPAQuAD item.")
    return Context("gold", text=passage.strip(), passages=[ContextPassage(passage.strip())])


def rag_context(hits: Sequence) -> Context:
    """The retrieved chunks as numbered sources, exactly as the page will number them (citations.number_sources:
    chunks of one document whose pages overlap are one source), each headed by its document, section and pages,
    so an answer's [2] means the page's source [2]."""
    chunks = [ContextPassage(h.chunk.text, h.chunk.page_start, h.chunk.page_end, getattr(h, "doc_id", "") or "",
                             getattr(h, "doc_name", "") or "", h.chunk.section, score=round(float(h.score), 4),
                             ocr=tuple(getattr(h, "ocr_pages", ()))) for h in hits]
    sources = number_sources(chunks)
    parts = [source_block(s.n, s.label, s.text) for s in sources]
    passages = [ContextPassage(s.text, s.page_start, s.page_end, s.doc_id or "", s.doc_name or "", s.section or "",
                               n=s.n, score=s.score, chunks=len(s.contexts), ocr=s.ocr) for s in sources]
    return Context("rag", text="\n\n".join(parts), passages=passages, parts=parts)


def multi_pdf_context(docs: Sequence[tuple[str, str, Sequence[Page]]], budget: int,
                      count_tokens: Callable[[str], int]) -> Context:
    """Full-PDF mode over several documents: the window is split evenly between them, and the context says
    what it kept of each."""
    share = max(0, budget // max(1, len(docs)))
    blocks, passages, notes = [], [], []
    total = used = 0
    for doc_id, name, pages in docs:
        ctx = pdf_context(pages, share - count_tokens(document_header(name)), count_tokens)
        blocks.append(document_block(name, ctx.text))
        total += ctx.total_tokens
        used += ctx.kept_tokens
        notes.append(f"{name}: kept {ctx.kept_fraction:.0%}")
        kept = ctx.passages[0]
        passages.append(replace(kept, doc_id=doc_id, doc_name=name,
                                text=f"{kept.text} (kept {ctx.kept_fraction:.0%} of this document)"))
    return Context("pdf", text="\n\n".join(blocks), passages=passages, truncated=used < total,
                   kept_fraction=(used / total) if total else 1.0, total_tokens=total, kept_tokens=used,
                   per_document="; ".join(notes))


def truncate_to_tokens(text: str, budget: int, count_tokens: Callable[[str], int]) -> tuple[str, int]:
    """The longest word-boundary prefix of ``text`` with at most ``budget`` tokens, and its token count."""
    if budget <= 0 or not text:
        return "", 0
    n = count_tokens(text)
    if n <= budget:
        return text, n
    words = text.split(" ")
    lo, hi = 0, len(words)
    # Binary search on the number of words kept (0 to all): about log2(words) tokenizer calls.
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(" ".join(words[:mid])) <= budget:
            lo = mid
        else:
            hi = mid - 1
    kept = " ".join(words[:lo]).rstrip()
    if lo < len(words) and len(words[lo]) > 200:
        # The next "word" is a long run with no spaces (a table rule, a symbol run): fill the rest of the
        # budget with a character cut of it rather than stopping short.
        base = len(" ".join(words[: lo + 1])) - len(words[lo])
        a, b = base, base + len(words[lo])
        while a < b:
            mid = (a + b + 1) // 2
            if count_tokens(text[:mid]) <= budget:
                a = mid
            else:
                b = mid - 1
        if a > base:
            kept = text[:a]
    return kept, count_tokens(kept) if kept else 0


def fit_to_window(ctx: Context, budget: int, count_tokens: Callable[[str], int]) -> Context:
    """Hold a RAG or gold context to ``budget`` tokens of the answering model, with the same visible notice as
    full-PDF mode. RAG keeps whole chunks in retrieval order and cuts the one that crosses the budget."""
    if not ctx.text or ctx.mode in ("none", "pdf"):
        return ctx
    total = count_tokens(ctx.text)
    if total <= budget:
        ctx.total_tokens = ctx.kept_tokens = total
        return ctx
    if ctx.mode == "gold":
        kept, used = truncate_to_tokens(ctx.text, budget, count_tokens)
        return Context("gold", text=kept, passages=[replace(ctx.passages[0], text=kept)] if ctx.passages else [], truncated=True, kept_fraction=used / total,
                       total_tokens=total, kept_tokens=used)
    parts = ctx.parts or [ctx.text]
    kept_parts: list[str] = []
    passages = []
    used = 0
    for part, passage in zip(parts, ctx.passages, strict=False):
        sep = count_tokens("\n\n") if kept_parts else 0
        n = count_tokens(part)
        if used + sep + n <= budget:
            kept_parts.append(part)
            passages.append(passage)
            used += sep + n
            continue
        cut, m = truncate_to_tokens(part, budget - used - sep, count_tokens)
        if cut.strip():
            kept_parts.append(cut)
            passages.append(replace(passage, text=cut.split("\n", 1)[-1]))
            used += sep + m
        break
    return Context("rag", text="\n\n".join(kept_parts), passages=passages, truncated=True,
                   kept_fraction=used / total, total_tokens=total, kept_tokens=used, parts=kept_parts)


def pdf_context(pages: Sequence[Page], budget: int, count_tokens: Callable[[str], int]) -> Context:
    """All page text, whole pages first, then a word-boundary cut of the page that crosses the budget."""
    texts = [page_block(p.number, p.text) for p in pages if p.text]
    counts = [count_tokens(t) for t in texts]
    total = sum(counts)
    numbers = [p.number for p in pages if p.text]
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
    # the last page the model saw (whole or in part): the support check reads the pages up to it again
    kept_through = numbers[len(kept_parts) - 1] if kept_parts else None
    truncated = used < total
    return Context(
        "pdf", text="\n\n".join(kept_parts), truncated=truncated,
        kept_fraction=(used / total) if total else 1.0, total_tokens=total, kept_tokens=used,
        passages=[ContextPassage(f"{len(kept_parts)} page(s) of text, {used:,} tokens",
                                 pages[0].number if pages else None, pages[-1].number if pages else None,
                                 kept_through=kept_through)],
    )
