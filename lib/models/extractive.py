"""Extractive baseline: answers with the whole context sentences most similar to the question. No LLM.

Sentences come from pysbd (a maintained rule-based splitter that knows "U.S.", "e.g." and "Fig. 3"). Only whole
sentences are quoted: a piece that starts mid-sentence (a chunk's first words), ends without a full stop (a chunk's
last words, a table cell), or is a heading, a dot-leader line or a list of bullets is never a candidate. Quoted
sentences appear in document order, each with its source number and page where the context gives one."""
from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lib.core.text import PASSAGE_GAP, join_line_breaks, mend, short_titles, tokenize
from lib.core.verdict import QUOTES_ONLY
from lib.models.base import Answer, ModelOptions, Provider, Request
from lib.models.embedding import get_exact_embedder

NO_CONTEXT = "(no context: the extractive baseline only quotes a given passage)"
NO_SENTENCE = "(the context has no whole sentence to quote: it is headings, tables or fragments)"
NON_ANSWERS = (NO_CONTEXT, NO_SENTENCE)  # what it says when it has nothing to quote: not an answer to compare

MAX_CANDIDATES = 64
MIN_WORDS = 4

# "[2] (FEIS › 4.3 Wetlands, p. 71)", as rag_context writes a source's header
_SOURCE_HEADER = re.compile(r"^\[(\d{1,3})\] \((.*)\)$")
_PAGE_HEADER = re.compile(r"^\[page (\d+)\]$")  # full-PDF mode's page markers
_DOC_HEADER = re.compile(r"^=== (.*) ===$")  # full-PDF mode over several documents
_PAGES_IN_LABEL = re.compile(r"\bpp?\. (\d+)(?:[–-](\d+))?$")
# bullets and the private-use glyphs PDF symbol fonts leave behind (Wingdings bullets come out as U+F0B7 and kin)
_GLYPHS = re.compile(r"[\u2022\u2023\u2043\u2219\u25aa\u25ab\u25a0\u25a1\u25cf\u25cb\u25e6\u2610\u2611\u2612"
                     r"\u27a2\u2713\u2714\u00b7\uf020-\uf0ff\ufffd]")
_LEADERS = re.compile(r"(\.\s?){4,}|…{2,}|_{4,}")
_BULLET = re.compile(r"^(?:[-–—*•▪◦■●o\uf020-\uf0ff]|\(?[a-z0-9]\)|[0-9]{1,2}\.)[\t ]+")  # "-\t", "• ", "(a) ", "1. " list markers
_INLINE_ITEM = re.compile(r"(?:(?<=[:.;])|(?<=[:.;] ))[ \t]+(?=(?:[-–•▪o\uf020-\uf0ff])[\t ]+[A-Z])")
_SECTION_NO = re.compile(r"^(?:[A-Z]{1,3}[.-])?\d+(?:\.\d+)+\.?\s+|^(?:[A-Z]{1,3}[.-])?\d+\.\d*\s+(?=[A-Z])")
_SMALL = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to", "with",
          "within", "under", "over", "vs", "per"}
_STARTS_BADLY = re.compile(r"^[a-z,;:.)\]}–—]")  # a chunk's first words, cut from the sentence before
_ENDS_WELL = re.compile(r"[.!?][\"”')\]]*$")


@dataclass
class Sentence:
    text: str
    source: int | None  # the numbered source it comes from (RAG), else None
    page: str  # "p. 71", "pp. 71–72" or ""
    order: int  # position in the context
    doc: str = ""  # the document it is in, where the context holds several (full-PDF headers, RAG's source_docs)


_LOCAL = threading.local()


def _segmenter():  # noqa: ANN202 - pysbd.Segmenter
    """This thread's segmenter. pysbd's Segmenter keeps the text it is splitting on itself, so one shared by the
    threads that answer or score cells at once splits one thread's text with another's (sentences lost or
    garbled); each thread gets its own."""
    seg = getattr(_LOCAL, "segmenter", None)
    if seg is None:
        import pysbd  # heavy: imported on first use, off start-up

        seg = _LOCAL.segmenter = pysbd.Segmenter(language="en", clean=False)
    return seg


def clean(text: str) -> str:
    """One line of prose: bullets and symbol-font glyphs removed, whitespace collapsed, hyphenated line breaks
    ("wet-\\nlands") joined."""
    return " ".join(_GLYPHS.sub(" ", join_line_breaks(text)).split())


_KEEP = "\ue000"  # stands in for the "!" of "![", which pysbd takes for a sentence end


def split_sentences(text: str) -> list[str]:
    """pysbd's sentences of ``text`` (after ``clean``), stripped. A piece that starts in lower case or with
    closing punctuation continues the one before (pysbd split it at a mark that does not end a sentence)."""
    text = clean(text).replace("![", _KEEP + "[")
    if not text:
        return []
    out: list[str] = []
    for piece in (p.strip() for p in _segmenter().segment(text)):
        if not piece:
            continue
        if out and _STARTS_BADLY.match(piece):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return [p.replace(_KEEP, "!") for p in out]


def strip_heading(sentence: str) -> str:
    """A sentence with the numbered heading the PDF text glued to its front taken off: "ES.1.6 Coordination with
    Regulatory Agencies In addition to public participation, …" → "In addition to public participation, …". The
    heading runs while words are capitalised or small; the sentence starts at the first capitalised word followed
    by a lower-case word that is not a small one. A numbered heading with no sentence after it returns ""."""
    m = _SECTION_NO.match(sentence)
    if not m:
        return sentence
    words = sentence[m.end():].split(" ")
    for i, w in enumerate(words[:-1]):
        nxt = words[i + 1]
        if w[:1].isupper() and nxt[:1].islower() and nxt.strip(",;:").lower() not in _SMALL:
            return " ".join(words[i:])
        if not (w[:1].isupper() or w.lower() in _SMALL or w[:1].isdigit()):
            return ""  # lower-case prose right after the number: not a heading we can take off safely
    return ""


def _heading_line(line: str) -> bool:
    """A line that is a heading of its own ("Wetlands", "Coordination with Regulatory Agencies"): short, no
    closing punctuation, and every longer word capitalised."""
    words = line.split()
    return (0 < len(words) <= 8 and not re.search(r"[.!?:;,]$", line)
            and all(w[:1].isupper() or w[:1].isdigit() or w.lower() in _SMALL for w in words))


def is_whole(sentence: str) -> bool:
    """A quotable sentence: does not start in lower case or with closing punctuation; ends with a full stop, question or
    exclamation mark; has at least MIN_WORDS words; no dot leaders (a table of contents)."""
    return (len(sentence.split()) >= MIN_WORDS and not _STARTS_BADLY.match(sentence)
            and bool(_ENDS_WELL.search(sentence)) and not _LEADERS.search(sentence))


def context_sentences(context: str, source_docs: dict[int, str] | None = None) -> list[Sentence]:
    """The context's whole sentences with their source number, page and (several documents) document. The lines
    of a passage are joined first: PDF text breaks lines mid-sentence, and a sentence must stay whole. A source
    header, page marker, document header or PASSAGE_GAP line ends a passage, so no sentence runs across two
    passages; and a sentence is kept only if its text occurs in its passage character for character after
    ``mend`` (none is made by the splitting, cleaning or heading removal)."""
    out: list[Sentence] = []
    source: int | None = None
    page = doc = ""
    lines: list[str] = []

    def flush() -> None:
        raw = "\n".join(lines)
        where = mend(raw)
        for s in split_sentences(raw):
            s = strip_heading(s)
            if s and is_whole(s) and mend(s) in where:
                out.append(Sentence(s, source, page, len(out), doc))
        lines.clear()

    # list items run together on one line ("Tax Revenues: o Local governments … o Both counties …") go on lines
    context = _INLINE_ITEM.sub("\n", context)
    for line in context.splitlines():
        stripped = line.strip()
        head = _SOURCE_HEADER.match(stripped)
        page_mark = _PAGE_HEADER.match(stripped)
        doc_mark = _DOC_HEADER.match(stripped)
        if (head or page_mark or doc_mark or stripped == PASSAGE_GAP
                or (not stripped and lines and source is None)):
            flush()
            if head:
                source = int(head.group(1))
                m = _PAGES_IN_LABEL.search(head.group(2))
                page = m.group(0) if m else ""
                doc = (source_docs or {}).get(source, "")
            elif page_mark:
                page = f"p. {page_mark.group(1)}"
            elif doc_mark:
                doc, page = doc_mark.group(1), ""
            continue
        bullet = _BULLET.match(stripped)
        if bullet:  # a list item starts a new passage, without its marker
            flush()
            stripped = stripped[bullet.end():].strip()
        if _heading_line(stripped):  # a heading line stands alone (and is never quoted: it is no sentence)
            flush()
            lines.append(stripped)
            flush()
            continue
        lines.append(stripped)
    flush()
    return out


@functools.lru_cache(maxsize=8)
def _sentences_of(context: str, source_docs: tuple[tuple[int, str], ...]) -> tuple[Sentence, ...]:
    """``context_sentences``, kept for the last few contexts: full-PDF mode gives every question of a benchmark
    the same whole document, and splitting it into sentences costs far more than answering."""
    return tuple(context_sentences(context, dict(source_docs)))


def _dedupe(sentences: list[Sentence]) -> list[Sentence]:
    """Overlapping chunks repeat sentences: keep the first copy of each."""
    seen: set[str] = set()
    out = []
    for s in sentences:
        key = " ".join(tokenize(s.text))
        if key and key not in seen:
            seen.add(key)
            out.append(s)
    return out


def _cite(s: Sentence, doc: str = "") -> str:
    """The sentence with its marker and place: "… [2] (p. 8)", or with several documents "… [2] (CONUS
    Interceptor Site, p. 8)"."""
    where = ", ".join(x for x in (doc, s.page) if x)
    ref = " ".join(x for x in (f"[{s.source}]" if s.source else "", f"({where})" if where else "") if x)
    return f"{s.text} {ref}" if ref else s.text


def quote(sentences: list[Sentence], several: bool = False) -> str:
    """The quoted sentences as the answer, in document order. With ``several`` documents in the context, each
    citation names its document (short title) and each document's sentences are a paragraph of their own, so no
    sentence of one EIS runs on into one of another."""
    if not several:
        return " ".join(_cite(s) for s in sentences)
    docs = list(dict.fromkeys(s.doc for s in sentences))
    short = short_titles([d for d in docs if d])
    return "\n\n".join(" ".join(_cite(s, short.get(d, "")) for s in sentences if s.doc == d) for d in docs)


class ExtractiveProvider(Provider):
    family, model_name = "local", "extractive"
    local = True  # runs here (on the embedder), beside the other local work
    count_unit = "counted in words"
    aliases = ("extractive",)
    label = "Extractive baseline (no LLM)"
    language_model = False  # it quotes sentences: it cannot judge, translate or write items
    options = ModelOptions(temperature=None, context_window=100_000)
    note = ("quotes the 2 whole sentences of the context closest to the question, with their sources and pages; "
            "instant, deterministic, a floor to beat")

    def __init__(self, n_sentences: int = 2) -> None:
        super().__init__()
        self.n = n_sentences

    def manifest_entry(self) -> dict:
        return super().manifest_entry() | {"sentences": self.n, "splitter": "pysbd 0.3 (whole sentences only)"}

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _generate(self, req: Request) -> Answer:
        if not (req.context or "").strip():
            return Answer(
                text=NO_CONTEXT,
                tokens_in=self.count_tokens(req.question), verdict=QUOTES_ONLY if req.closed else None,
            )
        tagged = _dedupe(_sentences_of(req.context, tuple(sorted((req.source_docs or {}).items()))))
        several = bool(req.source_docs) or len({s.doc for s in tagged}) > 1
        if not tagged:
            return Answer(
                text=NO_SENTENCE,
                tokens_in=self.count_tokens(req.question + " " + req.context), verdict=QUOTES_ONLY if req.closed else None,
            )
        if len(tagged) > MAX_CANDIDATES:
            # A whole document has thousands of sentences: embed only those sharing the most words with the question.
            q_words = set(tokenize(req.question))
            ranked = sorted(range(len(tagged)), key=lambda i: -len(q_words & set(tokenize(tagged[i].text))))
            tagged = [tagged[i] for i in sorted(ranked[:MAX_CANDIDATES])]
        emb = get_exact_embedder()  # exact vectors: the baseline's answers do not depend on the ingest backend
        vecs = emb.embed([req.question, *(s.text for s in tagged)])
        sims = vecs[1:] @ vecs[0]
        top = sorted(np.argsort(-sims)[: self.n].tolist())  # back in document order
        # each quoted sentence carries its source number and page, so the answer cites like a model's would
        text = quote([tagged[i] for i in top], several)
        # No yes or no: quoting cannot decide one, and a "no" inside a quote is no verdict. A closed question gets
        # the quotes with "Quotes only:" before them, and the verdict "quotes only" (counted apart, never wrong).
        verdict = QUOTES_ONLY if req.closed else None
        if req.closed:
            text = f"Quotes only:\n{text}"
        return Answer(text=text, tokens_in=self.count_tokens(req.question + " " + req.context),
                      tokens_out=self.count_tokens(text), verdict=verdict, verdict_source="none" if req.closed else None)


def register_models(register: Callable[[Provider], Provider]) -> None:
    register(ExtractiveProvider())
