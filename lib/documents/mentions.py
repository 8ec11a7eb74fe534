"""Which documents a text speaks of: by name (its title, project title, EIS number, file name, an acronym its
title spells out, or a word of its name no other document in view shares), or together ("both EISs", "the two
documents", "each project").

Used on a question (lib/retrieval/comparison.py: does it compare documents?) and on each sentence of an answer
(lib/qa/support.py: which documents must its evidence come from?). Nothing here is tuned to one document: the names
come from each document's own metadata, and a single word counts only when it is in no other document's name.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

# words of a name that say what kind of document or place it is, not which one
GENERIC = frozenset(["final", "draft", "supplemental", "programmatic", "revised", "record", "decision", "environmental", "impact", "statement", "statements", "assessment", "eis", "deis", "feis", "seis", "peis", "ea", "fonsi", "rod", "executive", "summary", "volume", "appendix", "appendices", "chapter", "part", "project", "projects", "proposed", "plan", "plans", "program", "site", "sites", "area", "areas", "field", "office", "district", "region", "county", "counties", "state", "states", "united", "national", "federal", "department", "bureau", "service", "agency", "administration", "management", "u.s", "us", "of", "the", "and", "for", "at", "in", "on", "to", "a", "an", "river", "lake", "creek", "mountain", "mount", "valley", "north", "south", "east", "west", "northern", "southern", "eastern", "western", "central", "new", "alaska", "nevada", "california", "texas", "utah", "oregon", "washington", "montana", "wyoming", "idaho", "colorado", "arizona", "florida", "maine", "michigan", "ohio", "york", "mine", "mines", "mining", "pipeline", "dam", "airport", "highway", "road", "bridge", "port", "terminal", "facility", "facilities", "base", "station", "plant", "reservoir", "corridor", "transmission", "line", "wind", "solar", "energy", "expansion", "improvement", "improvements", "interstate", "rail", "transit", "forest", "park", "refuge", "island", "bay", "harbor", "installation", "training", "range"])

# a noun that stands for a document in "both EISs", "the two documents", "each project"
DOC_NOUN = (r"(?:(?:final|draft|supplemental|programmatic)\s+)?(?:EIS(?:s|es)?|[DFSP]EIS(?:s|es)?|"
            r"environmental\s+impact\s+statements?|documents?|statements?|projects?|reports?|studies|study|"
            r"analyses|proposals?)")
# several documents at once, in an answer's sentence: a word that counts them, then (within two words) a document
_TOGETHER = re.compile(r"\b(?:both|each|either|neither|(?:the|these|those)\s+two|all\s+(?:three|four|five)|every)"
                       r"\s+(?:\w+\s+){0,2}?" + DOC_NOUN + r"\b", re.IGNORECASE)
# in a question, also a plural document ("these EISs", "the documents") or a word that compares
_PLURAL = re.compile(r"\b(?:EISs|EISes|[DFSP]EISs|environmental\s+impact\s+statements|documents)\b", re.IGNORECASE)
_COMPARES = re.compile(r"\b(?:both|each|either|neither|the\s+two|compare[sd]?|comparison|versus|vs\.?|"
                       r"differ(?:s|ence|ences)?)\b", re.IGNORECASE)
_ACRONYM = re.compile(r"\(([A-Z][A-Z0-9&-]{1,9})\)")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")


@dataclass(frozen=True)
class DocRef:
    """A document as texts may name it."""

    doc_id: str
    name: str  # how citations name it (lib/documents/metadata.citation_name)
    phrases: tuple[str, ...] = ()  # whole names, matched without regard to case: title, project title, EIS number
    words: tuple[str, ...] = field(default=())  # single words of its names, matched as written (capitalised)


def doc_ref(doc_id: str, name: str, names: Iterable[str | None]) -> DocRef:
    """A document's names: its citation name and every other name given (title, project title, EIS number, file
    name as words), plus the acronyms its names spell out in parentheses ("(CONUS)"). Its distinctive single words
    are set by ``distinguish`` once every document in view is known."""
    phrases = [name, *(n for n in names if n)]
    acronyms = [m.group(1) for p in phrases for m in _ACRONYM.finditer(p)]
    cleaned = [" ".join(_ACRONYM.sub(" ", p).split()) for p in phrases]
    out = list(dict.fromkeys(p.strip(" .,;:") for p in [*cleaned, *acronyms] if len(p.strip()) >= 3))
    return DocRef(doc_id, name, tuple(out))


def _name_words(ref: DocRef) -> set[str]:
    return {w for p in ref.phrases for w in _WORD.findall(p) if w.lower() not in GENERIC and len(w) >= 4}


def distinguish(refs: Sequence[DocRef]) -> list[DocRef]:
    """Each document with the words of its names that no other document's names share (capitalised, four letters
    or more, not a generic word such as "Final" or "Project"): "Goldrush" names the Goldrush Mine EIS when no other
    document in view has it in its name."""
    words = [_name_words(r) for r in refs]
    seen = Counter(w for ws in words for w in {x.lower() for x in ws})  # in how many documents' names
    return [DocRef(r.doc_id, r.name, r.phrases, tuple(sorted(w for w in ws if seen[w.lower()] == 1 and w[0].isupper())))
            for r, ws in zip(refs, words, strict=True)]


def _phrase_at(text: str, phrase: str) -> int:
    m = re.search(r"(?<![\w-])" + r"\s+".join(re.escape(w) for w in phrase.split()) + r"(?![\w-])", text,
                  re.IGNORECASE if not phrase.isupper() else 0)
    return m.start() if m else -1


def _word_at(text: str, word: str) -> int:
    """Where ``word`` stands as written; a word that is not an acronym does not count at the start of a sentence,
    where any word is capitalised ("Wildlife impacts?" names no "Wildlife Refuge" EIS)."""
    for m in re.finditer(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text):
        if word.isupper() or not re.search(r"(?:^|[.!?:;]\s)[\s\"'(]*$", text[:m.start()]):
            return m.start()
    return -1


def mentioned(text: str, refs: Sequence[DocRef]) -> list[str]:
    """The ids of the documents ``text`` names, in the order it first names them."""
    found = []
    for r in refs:
        at = [a for a in (*(_phrase_at(text, p) for p in r.phrases), *(_word_at(text, w) for w in r.words)) if a >= 0]
        if at:
            found.append((min(at), r.doc_id))
    return [d for _, d in sorted(found)]


def _spans(text: str, refs: Sequence[DocRef]) -> list[tuple[int, int]]:
    out = []
    for r in refs:
        for p in r.phrases:
            flags = 0 if p.isupper() else re.IGNORECASE
            out += [m.span() for m in re.finditer(r"(?<![\w-])" + r"\s+".join(re.escape(w) for w in p.split())
                                                  + r"(?![\w-])", text, flags)]
        out += [m.span() for w in r.words for m in re.finditer(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text)]
    return out


_AROUND = re.compile(r"(?:\b(?i:the|both|each|either|neither)\s+)?\x00(?:[\s-]+(?:and\s+(?:the\s+)?)?"
                     r"(?:\x00|[A-Z][\w-]*|\([A-Z0-9]+\)))*(?:'s)?")


def without_mentions(text: str, refs: Sequence[DocRef], counting: bool = True) -> str:
    """``text`` with the documents it names, and the words that count them ("both EISs"), each put as "it": what
    it says about a document, to look for in that document's sources ("The Goldrush Mine EIS identifies 57
    sites" → "it identifies 57 sites"). ``counting=False`` leaves "both EISs" as written (a search's query: words
    every EIS has pull no document's passages ahead, where a document's name pulls its own cover and introduction)."""
    spans = sorted(_spans(text, refs))
    marked, pos = [], 0
    for a, b in spans:
        if a >= pos:
            marked += [text[pos:a], "\x00"]
            pos = b
    marked.append(text[pos:])
    out = _AROUND.sub("it", "".join(marked))
    out = _TOGETHER.sub("it", out) if counting else out
    return " ".join(out.replace("\x00", "it").split())


def together(text: str) -> bool:
    """Does a sentence speak of several documents at once: "both EISs", "the two documents", "each project",
    "all three EISs"? A plain plural ("the documents") or "the two alternatives" does not count."""
    return bool(_TOGETHER.search(text))


def compares(question: str) -> bool:
    """Does a question ask about several documents: what ``together`` finds, a plural document ("these EISs"),
    or a word that compares or counts them ("both", "each", "the two", "compare", "differ")?"""
    return together(question) or bool(_PLURAL.search(question)) or bool(_COMPARES.search(question))
