"""Sentences of prose, the one way the studio cuts them where a user will read the result: pysbd's sentences (a
maintained rule-based splitter that knows "U.S.", "e.g." and "Fig. 3"), cleaned of bullets and symbol-font glyphs,
with a numbered heading glued to a sentence's front taken off, and a test for a whole, quotable sentence. The
extractive baseline quotes with it, the support check and the context metrics compare with it. (The faster rule
splitter for comparing texts, ``quick_sentences``, is in text.py.)"""
from __future__ import annotations

import re
import threading
from typing import Any

from lib.core.text import join_line_breaks

MIN_WORDS = 4

# bullets and the private-use glyphs PDF symbol fonts leave behind (Wingdings bullets come out as U+F0B7 and kin)
_GLYPHS = re.compile(r"[\u2022\u2023\u2043\u2219\u25aa\u25ab\u25a0\u25a1\u25cf\u25cb\u25e6\u2610\u2611\u2612"
                     r"\u27a2\u2713\u2714\u00b7\uf020-\uf0ff\ufffd]")
_LEADERS = re.compile(r"(\.\s?){4,}|…{2,}|_{4,}")
_SECTION_NO = re.compile(r"^(?:[A-Z]{1,3}[.-])?\d+(?:\.\d+)+\.?\s+|^(?:[A-Z]{1,3}[.-])?\d+\.\d*\s+(?=[A-Z])")
_SMALL = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to", "with",
          "within", "under", "over", "vs", "per"}
_STARTS_BADLY = re.compile(r"^[a-z,;:.)\]}–—]")  # a chunk's first words, cut from the sentence before
_ENDS_WELL = re.compile(r"[.!?][\"”')\]]*$")


_LOCAL = threading.local()


def _segmenter() -> Any:  # pysbd has no type information: its Segmenter is Any here
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


def heading_line(line: str) -> bool:
    """A line that is a heading of its own ("Wetlands", "Coordination with Regulatory Agencies"): short, no
    closing punctuation, and every longer word capitalised."""
    words = line.split()
    return (0 < len(words) <= 8 and not re.search(r"[.!?:;,]$", line)
            and all(w[:1].isupper() or w[:1].isdigit() or w.lower() in _SMALL for w in words))


def is_whole_item(item: str) -> bool:
    """A quotable list item without a full stop of its own ("Wetland mitigation at a 2:1 ratio"), given whole (the
    next item or a break followed it): at least MIN_WORDS words, not starting in lower case or with closing
    punctuation, not ending as an item that leads into more (":", ",", ";", "and", "or"), no dot leaders."""
    words = item.split()
    return (len(words) >= MIN_WORDS and not _STARTS_BADLY.match(item) and not _LEADERS.search(item)
            and not re.search(r"[:,;–—-]$", item) and words[-1].lower() not in ("and", "or"))


def is_whole(sentence: str) -> bool:
    """A quotable sentence: does not start in lower case or with closing punctuation; ends with a full stop, question or
    exclamation mark; has at least MIN_WORDS words; no dot leaders (a table of contents)."""
    return (len(sentence.split()) >= MIN_WORDS and not _STARTS_BADLY.match(sentence)
            and bool(_ENDS_WELL.search(sentence)) and not _LEADERS.search(sentence))
