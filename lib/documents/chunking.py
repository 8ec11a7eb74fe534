"""Token-sized chunking with LangChain's splitters; every chunk knows its pages and character offsets."""
from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lib.core.errors import UserError
from lib.documents.pdf import Page

PAGE_SEPARATOR = "\n\n"
SEPARATORS = ["\n\n", "\n", ". ", "; ", ", ", " ", ""]


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str
    page_start: int
    page_end: int
    char_start: int  # offset into the document text (pages joined by PAGE_SEPARATOR)
    char_end: int
    n_tokens: int
    section: str = ""  # heading path from the PDF outline, e.g. "ES.4.0 Environmental Consequences › ES.4.3 Water"


# Navigation text: a table of contents, a list of tables or figures. Its chunks repeat every heading with a page
# number, so they match many queries by words and by meaning while answering none; they are marked at ingest and
# ranked after every other chunk (kept, so citations and the full text stay whole).
_LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|_{5,}")
_PAGE_REF = re.compile(r"\s*[\w.–-]{0,10}[0-9ivxlcIVXLC]\s*$")  # "ES-12", "4-3", "iv" at a line's end
_TOC_START = re.compile(r"^\s*(?:(?:[A-Z]{1,3}[.-])?\d+(?:[.-]\d+)*\.?|Table|Figure|Chapter|Appendix|Section|"
                        r"Attachment|Exhibit|Part)\b", re.I)
_TOC_HEADING = re.compile(r"\b(?:table of contents|contents|list of (?:tables|figures|exhibits|appendices))\b", re.I)


def _leader_line(line: str) -> bool:
    """Dot leaders followed by a page reference at the end of the line."""
    found = list(_LEADER.finditer(line))
    return bool(found) and bool(_PAGE_REF.fullmatch(line[found[-1].end():]))


def is_navigation(text: str) -> bool:
    """A table-of-contents-like chunk: two numbered (or Table/Figure) headings with dot leaders and page numbers;
    one such line when leaders fill a quarter of the text; a page reference after leaders filling 40% of it; or
    a contents heading over dot-leader lines. A data table whose rows use dot leaders ("Acres disturbed ..... 45")
    is not one. Linear in the text (it runs on every chunk at ingest)."""
    if "...." not in text and ". . . ." not in text and "……" not in text and "_____" not in text:
        return False
    lines = text.splitlines()
    leader_lines = [ln for ln in lines if _leader_line(ln)]
    toc_lines = sum(1 for ln in leader_lines if _TOC_START.match(ln))
    if toc_lines >= 2:
        return True
    leaders = sum(len(m.group(0)) for m in _LEADER.finditer(text))
    size = max(1, len(text.strip()))
    if (toc_lines == 1 and leaders >= 0.25 * size) or (leaders >= 0.4 * size and leader_lines):
        return True
    return bool(_TOC_HEADING.search(text)) and bool(leader_lines)


_NAV_ENTRY = re.compile(r"^\s*(?:table of contents|contents|list of (?:tables|figures|exhibits|appendices|acronyms|"
                        r"abbreviations|preparers)|acronyms(?: and abbreviations)?|abbreviations)\s*$", re.I)


def assign_sections(chunks: list[Chunk], toc: Sequence[Sequence], pages: Sequence[Page]) -> list[Chunk]:
    """Give each chunk the path of the body headings that precede it (or a heading inside its first lines).

    Each outline entry is placed where its title starts a line of its page. An entry whose title is on no line
    of its page is unsure: it still ends the section before it, but the chunks it would head get no section
    (the page alone says where they are), rather than a label that may name the wrong place. A navigation entry
    ("Table of Contents", "List of Figures") heads only its own pages: it is never part of a body section's path,
    though an outline may nest the body's headings under it. A table's passages are labelled by its caption
    alone ("Table ES-5 Comparative Summary … for CIS Candidate Sites"), not by the heading before it: a table that
    compares sites or alternatives sits under one site's heading but speaks of all (see ``table_spans``).
    Model-free, from the PDF's own outline and text."""
    if not chunks:
        return chunks
    text, starts = join_pages(pages)
    tables = table_spans(text, starts)
    table_starts = [b for b, _, _ in tables]
    if not toc and not tables:
        return chunks
    index = {p.number: i for i, p in enumerate(pages)}
    marks: list[tuple[int, int, str, bool]] = []  # (offset, level, title, found on its page)
    for level, title, page, *_ in toc:
        title = " ".join(str(title).split())
        if not title or page not in index:
            continue
        i = index[page]
        begin = starts[i]
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        found = find_heading(text[begin:end], title)
        marks.append((begin + max(found, 0), max(1, int(level)), title, found >= 0))
    marks.sort(key=lambda m: m[0])
    mark_at = [m[0] for m in marks]
    stack: list[tuple[int, str, bool]] = []  # (level, title, sure), outermost first
    j = 0
    out = []
    for c in chunks:
        while j < len(marks) and marks[j][0] <= c.char_start + HEADING_SLACK:
            _, level, title, sure = marks[j]
            kept = [e for e in stack if e[0] < level]
            if not _NAV_ENTRY.match(title):
                kept = [e for e in kept if not _NAV_ENTRY.match(e[1])]
            stack = [*kept, (level, title, sure)]
            j += 1
        sure = bool(stack) and stack[-1][2]
        label = " › ".join(e[1] for e in stack) if sure else ""
        at = c.char_start + HEADING_SLACK  # a caption in a chunk's first lines names that chunk, as a heading does
        t = bisect.bisect_right(table_starts, at) - 1
        h = bisect.bisect_right(mark_at, tables[t][0]) if t >= 0 else 0  # the first heading after the caption
        # a heading that starts the chunk before the caption in its first lines names the chunk
        head_first = t >= 0 and c.char_start <= tables[t][0] and bisect.bisect_left(mark_at, c.char_start) < \
            bisect.bisect_left(mark_at, tables[t][0])
        if t >= 0 and at < tables[t][1] and not (h < len(mark_at) and mark_at[h] <= at) and not head_first:
            label = tables[t][2]  # inside a table that no heading has ended
        out.append(dataclasses.replace(c, section=label))
    return out


# A table's caption starts a line: "Table ES-5 Comparative Summary …", "Table 3.2-1. Noise Levels", "Table 4-1
# (continued)". A sentence that names a table ("Table ES-1 of Section ES2.3 …") goes on in lower case.
_CAPTION = re.compile(r"(?m)^[ \t]*(Table[ \t]+(?:[A-Z]{1,3}[-.]?)?\d+(?:[.-]\d+)*[a-z]?)[.:]?[ \t]+"
                      r"(\(continued\)|[A-Z(][^\n]{2,160}?)[ \t]*$")
CONTINUED_LINES = 8  # a page whose first lines repeat the table's header row (or its caption) continues it


def table_spans(text: str, starts: list[int]) -> list[tuple[int, int, str]]:
    """Where each captioned table runs in the document text: (start, end, caption). A table starts at its caption
    and runs to the end of its page, and on over each next page whose first lines repeat its header row (the
    first line under the caption) or its caption; a later caption ends it. Captions in a list of tables (dot
    leaders) are not tables. Model-free; not tuned to any document's layout."""
    ends = [*starts[1:], len(text)]
    spans: list[tuple[int, int, str]] = []
    for m in _CAPTION.finditer(text):
        if _leader_line(m.group(0)) or m.group(2) == "(continued)":
            continue
        page = max(0, bisect.bisect_right(starts, m.start()) - 1)
        below = [ln.strip() for ln in text[m.end():ends[page]].splitlines() if ln.strip()]
        if _sentence(m.group(2), below[0] if below else ""):
            continue
        header = below[0] if below else ""
        end_page = page
        while end_page + 1 < len(starts):
            nxt = starts[end_page + 1]
            first = [" ".join(ln.split()) for ln in text[nxt:ends[end_page + 1]].splitlines() if ln.strip()]
            first = first[:CONTINUED_LINES]
            again = any((c := _CAPTION.match(ln)) and c.group(1) == m.group(1) for ln in first)  # caption repeated
            if not ((header and " ".join(header.split()) in first) or again):
                break
            end_page += 1
        spans.append((m.start(), ends[end_page], " ".join(f"{m.group(1)} {m.group(2)}".split())))
    spans.sort()
    return [(b, min(e, spans[i + 1][0]) if i + 1 < len(spans) else e, cap) for i, (b, e, cap) in enumerate(spans)]


def _sentence(title: str, next_line: str) -> bool:
    """Whether a line that starts "Table 4-3." is a sentence that begins there rather than a caption: a sentence
    ends inside it, it stops at a comma or semicolon, the next line goes on in lower case, or it is a long line
    ending in a full stop."""
    title = title.strip()
    return bool(re.search(r"[a-z0-9)][.!?][ \t]+\S", title) or title.endswith((",", ";"))
                or next_line[:1].islower() or (title.endswith(".") and len(title.split()) >= 8))


HEADING_SLACK = 120  # a heading in a chunk's first line or two names that chunk's section


def find_heading(page_text: str, title: str) -> int:
    """Where ``title`` starts a line of the page (its words in order, any whitespace or line breaks between them,
    case aside), or -1. A title met only inside a sentence or a table cell is not its heading."""
    words = title.split()[:12]
    if not words:
        return -1
    m = re.search(r"(?im)^[ \t]*(" + r"\s+".join(re.escape(w) for w in words) + ")", page_text)
    return m.start(1) if m else -1


def join_pages(pages: Sequence[Page]) -> tuple[str, list[int]]:
    """The document text and the offset where each page starts in it."""
    parts: list[str] = []
    starts: list[int] = []
    pos = 0
    for page in pages:
        starts.append(pos)
        parts.append(page.text)
        pos += len(page.text) + len(PAGE_SEPARATOR)
    return PAGE_SEPARATOR.join(parts), starts


def page_at(offset: int, page_starts: list[int], page_numbers: list[int]) -> int:
    return page_numbers[max(0, bisect.bisect_right(page_starts, offset) - 1)]


def validate_params(chunk_size: int, chunk_overlap: int, max_tokens: int) -> None:
    if chunk_size < 16:
        raise UserError(f"Chunk size {chunk_size} is too small; use at least 16 tokens.")
    if chunk_size > max_tokens:
        raise UserError(
            f"Chunk size {chunk_size} tokens is over the embedding model's window of {max_tokens} tokens; "
            f"text past that would be cut off. Use {max_tokens} or fewer."
        )
    if not 0 <= chunk_overlap < chunk_size:
        raise UserError(f"Chunk overlap must be at least 0 and less than the chunk size ({chunk_size}).")


def chunk_pages(
    pages: Sequence[Page],
    count_tokens: Callable[[str], int],
    chunk_size: int,
    chunk_overlap: int,
    max_tokens: int,
) -> list[Chunk]:
    """Split the document into chunks of at most ``chunk_size`` tokens (never over ``max_tokens``)."""
    validate_params(chunk_size, chunk_overlap, max_tokens)
    # The splitter measures the same small pieces many times while merging: count each once.
    count_tokens = functools.lru_cache(maxsize=200_000)(count_tokens)
    text, starts = join_pages(pages)
    numbers = [p.number for p in pages]
    from langchain_text_splitters import RecursiveCharacterTextSplitter  # heavy: reading the store needs no splitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        length_function=count_tokens,
        separators=SEPARATORS,
        keep_separator="end",
        strip_whitespace=True,
    )
    chunks: list[Chunk] = []
    cursor = 0
    for piece in splitter.split_text(text):
        # Locate each chunk ourselves: LangChain's start_index assumes the overlap is in characters.
        start = text.find(piece, cursor)
        if start < 0:
            start = text.find(piece)
        cursor = start + 1
        n = count_tokens(piece)
        # The splitter sums piece lengths; re-check the real count so nothing is truncated by the embedder.
        pieces = [(piece, start, n)] if n <= max_tokens else _hard_split(piece, start, count_tokens, max_tokens)
        # A token count can hide a huge chunk (a 48,000-character run of one symbol is a handful of unknown
        # tokens): bound characters too, so no chunk is far longer than its tokens suggest.
        max_chars = chunk_size * MAX_CHARS_PER_TOKEN
        pieces = [part for sub in pieces for part in _char_split(*sub, max_chars, count_tokens)]
        for sub, sub_start, sub_n in pieces:
            if not sub.strip():
                continue
            end = sub_start + len(sub)
            chunks.append(
                Chunk(
                    index=len(chunks),
                    text=sub,
                    page_start=page_at(sub_start, starts, numbers),
                    page_end=page_at(max(sub_start, end - 1), starts, numbers),
                    char_start=sub_start,
                    char_end=end,
                    n_tokens=sub_n,
                )
            )
    return chunks


MAX_CHARS_PER_TOKEN = 8  # English averages about 4 characters a token; 8 leaves room for long words and numbers


def _char_split(text: str, start: int, n: int, max_chars: int,
                count_tokens: Callable[[str], int]) -> list[tuple[str, int, int]]:
    """Cut a piece longer than ``max_chars`` characters, at the last space before the bound where there is one."""
    if len(text) <= max_chars:
        return [(text, start, n)]
    out = []
    pos = 0
    while pos < len(text):
        end = min(len(text), pos + max_chars)
        if end < len(text):
            space = text.rfind(" ", pos + max_chars // 2, end)
            end = space + 1 if space > 0 else end
        part = text[pos:end]
        out.append((part, start + pos, count_tokens(part)))
        pos = end
    return out


def _hard_split(
    text: str, start: int, count_tokens: Callable[[str], int], max_tokens: int
) -> list[tuple[str, int, int]]:
    """Split an over-long piece on word boundaries so each part fits ``max_tokens``."""
    out: list[tuple[str, int, int]] = []
    words = text.split(" ")
    cur: list[str] = []
    cur_start = start
    pos = start
    for word in words:
        trial = " ".join([*cur, word])
        if cur and count_tokens(trial) > max_tokens:
            part = " ".join(cur)
            out.append((part, cur_start, count_tokens(part)))
            cur, cur_start = [word], pos
        else:
            cur.append(word)
        pos += len(word) + 1
    if cur:
        part = " ".join(cur)
        out.append((part, cur_start, count_tokens(part)))
    return out
