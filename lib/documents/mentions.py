"""Which documents a text speaks of: by name (its title, project title, EIS number, file name, an acronym its
title spells out, or a word of its name no other document in view shares), or together ("both EISs", "the two
documents", "each project").

Used on a question (lib/retrieval/comparison.py: does it compare documents?) and on each sentence of an answer
(lib/qa/support.py: which documents must its evidence come from?). Nothing here is tuned to one document: the names
come from each document's own metadata, and a single word counts only when it is in no other document's name.
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lib.core.json_types import JSONObject

# words of a name that say what kind of document or place it is, not which one
GENERIC = frozenset(["final", "draft", "supplemental", "programmatic", "revised", "record", "decision", "environmental", "impact", "statement", "statements", "assessment", "eis", "deis", "feis", "seis", "peis", "ea", "fonsi", "rod", "executive", "summary", "volume", "appendix", "appendices", "chapter", "part", "project", "projects", "proposed", "plan", "plans", "program", "site", "sites", "area", "areas", "field", "office", "district", "region", "county", "counties", "state", "states", "united", "national", "federal", "department", "bureau", "service", "agency", "administration", "management", "u.s", "us", "of", "the", "and", "for", "at", "in", "on", "to", "a", "an", "river", "lake", "creek", "mountain", "mount", "valley", "north", "south", "east", "west", "northern", "southern", "eastern", "western", "central", "new", "alaska", "nevada", "california", "texas", "utah", "oregon", "washington", "montana", "wyoming", "idaho", "colorado", "arizona", "florida", "maine", "michigan", "ohio", "york", "mine", "mines", "mining", "pipeline", "dam", "airport", "highway", "road", "bridge", "port", "terminal", "facility", "facilities", "base", "station", "plant", "reservoir", "corridor", "transmission", "line", "wind", "solar", "energy", "expansion", "improvement", "improvements", "interstate", "rail", "transit", "forest", "park", "refuge", "island", "bay", "harbor", "installation", "training", "range"])

# a noun that stands for a document in "both EISs", "the two documents", "the Goldrush EIS"
_EIS = r"(?:EIS(?:s|es)?|[DFSP]EIS(?:s|es)?|EAs?|RODs?)"
DOC_NOUN = (r"(?:(?:final|draft|supplemental|programmatic)\s+)?(?:" + _EIS + r"|environmental\s+impact\s+statements?|"
            r"documents?|statements?)")
# after a single word of a name, within two words: "Goldrush EIS", "Goldrush Mine project", "Tongass plan"
_NAMED_BY = re.compile(r"(?:[\s-]+[A-Z][\w-]*){0,2}?[\s-]+(?:(?i:final|draft|supplemental)\s+)?(?:" + _EIS
                       + r"|(?i:environmental\s+impact\s+statement|document|statement|project|plan|study))\b")
# several documents at once, in an answer's sentence: a word that counts them, then (within two words) a document
_TOGETHER = re.compile(r"\b(?:both|each|either|neither|(?:the|these|those)\s+two|all\s+(?:three|four|five)|every)"
                       r"\s+(?:\w+\s+){0,2}?" + DOC_NOUN + r"\b", re.IGNORECASE)
# in a question, also a plural document ("these EISs", "the documents", "both projects") or a word that counts
# or compares them: "both", "each", "the two" (the words), "either", "neither", "compare"
_PLURAL = re.compile(r"\b(?:EISs|EISes|[DFSP]EISs|environmental\s+impact\s+statements|documents|projects)\b",
                     re.IGNORECASE)
_COMPARES = re.compile(r"\b(?:both|each|either|neither|the\s+two|compare[sd]?)\b", re.IGNORECASE)
_ACRONYM = re.compile(r"\(([A-Z][A-Z0-9&-]{1,9})\)")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_NOT_NAMES = frozenset({"report", "document", "documents", "statement", "study", "analysis", "pdf", "copy", "eiss"})


@dataclass(frozen=True)
class DocRef:
    """A document as texts may name it."""

    doc_id: str
    name: str  # how citations name it (lib/documents/metadata.citation_name)
    phrases: tuple[str, ...] = ()  # whole names, matched without regard to case: title, project title, EIS number
    words: tuple[str, ...] = field(default=())  # single words of its names, matched as written (capitalised)

    def as_dict(self) -> JSONObject:
        return {"doc_id": self.doc_id, "name": self.name, "phrases": list(self.phrases), "words": list(self.words)}

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> DocRef:
        def words(key: str) -> tuple[str, ...]:
            raw = d.get(key)
            return tuple(str(w) for w in raw) if isinstance(raw, list | tuple) else ()
        return cls(str(d["doc_id"]), str(d["name"]), words("phrases"), words("words"))


def doc_ref(doc_id: str, name: str, names: Iterable[str | None]) -> DocRef:
    """A document's names: its citation name and every other name given (title, project title, EIS number, file
    name as words), plus the acronyms its names spell out in parentheses ("(CONUS)"). A name all of whose words are
    generic ("Final EIS", "(EIS)", "report") names no document; a name cut short ("…") is matched by its words
    only. Its distinctive single words are set by ``distinguish`` once every document in view is known."""
    phrases = [name, *(n for n in names if n)]
    acronyms = [m.group(1) for p in phrases for m in _ACRONYM.finditer(p)]
    cleaned = [" ".join(_ACRONYM.sub(" ", p).split()) for p in phrases if not p.rstrip().endswith("…")]
    out = [p.strip(" .,;:") for p in [*cleaned, *acronyms]]
    out = [p for p in dict.fromkeys(out) if len(p) >= 3 and any(
        w.lower() not in GENERIC and w.lower() not in _NOT_NAMES for w in re.findall(r"[\w'-]+", p))]
    return DocRef(doc_id, name, tuple(out))


def _name_words(ref: DocRef) -> set[str]:
    return {w for p in ref.phrases for w in _WORD.findall(p)
            if w.lower() not in GENERIC and w.lower() not in _NOT_NAMES and (len(w) >= 4 or w.isupper())}


def distinguish(refs: Sequence[DocRef]) -> list[DocRef]:
    """Each document with the words of its names that no other document's names share (capitalised, four letters
    or more, not a generic word such as "Final" or "Project"): "Goldrush" names the Goldrush Mine EIS when no other
    document in view has it in its name."""
    words = [_name_words(r) for r in refs]
    seen = Counter(w for ws in words for w in {x.lower() for x in ws})  # in how many documents' names
    return [DocRef(r.doc_id, r.name, r.phrases, tuple(sorted(w for w in ws if seen[w.lower()] == 1 and w[0].isupper())))
            for r, ws in zip(refs, words, strict=True)]


@functools.lru_cache(maxsize=65536)
def _phrase_pattern(phrase: str) -> re.Pattern:
    body = r"(?<![\w-])" + r"\s+".join(re.escape(w) for w in phrase.split()) + r"(?![\w-])"
    return re.compile(body, 0 if phrase.isupper() else re.IGNORECASE)


@functools.lru_cache(maxsize=65536)
def _word_pattern(word: str) -> re.Pattern:
    return re.compile(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])")


def _word_counts(text: str, m: re.Match, word: str) -> bool:
    """A single word of a name names its document only beside a document noun ("the Goldrush EIS", "the Goldrush
    Mine project"); an acronym ("CONUS") anywhere. A word alone is too often a place or an agency ("Lewis
    County", "the Bureau of Land Management")."""
    return word.isupper() or bool(_NAMED_BY.match(text, m.end()))


def spans(text: str, refs: Sequence[DocRef]) -> list[tuple[int, int, str]]:
    """(start, end, document id) of each place ``text`` names a document, in order."""
    out = []
    for r in refs:
        for p in r.phrases:
            out += [(*m.span(), r.doc_id) for m in _phrase_pattern(p).finditer(text)]
        for w in r.words:
            out += [(*m.span(), r.doc_id) for m in _word_pattern(w).finditer(text) if _word_counts(text, m, w)]
    return sorted(out)


def mentioned(text: str, refs: Sequence[DocRef]) -> list[str]:
    """The ids of the documents ``text`` names, in the order it first names them."""
    return list(dict.fromkeys(d for _, _, d in spans(text, refs)))


# after a name, the words that go with it ("EIS", "Mine EIS", "Final EIS", "'s"), not "Alternative B", "Fort Drum"
_GENERIC_CAP = "|".join(sorted({w.capitalize() for w in GENERIC if w.isalpha() and len(w) > 2}, key=len, reverse=True))
_TAIL = re.compile(r"(?:[\s-]+(?:" + _EIS + r"|(?:" + _GENERIC_CAP + r")\b))*(?:'s)?")
_AROUND = re.compile(r"(?:\b(?i:the|both|each|either|neither)\s+)?\x00(?:\s+(?:(?i:and)\s+(?:(?i:the)\s+)?)?\x00)*")


def marked(text: str, refs: Sequence[DocRef]) -> str:
    """``text`` with each document name it holds, with the words that go with it ("the Goldrush Mine EIS"), as one
    NUL character: what is said around the names, to read."""
    out, pos = [], 0
    for a, b, _ in spans(text, refs):
        if a >= pos:
            out += [text[pos:a], "\x00"]
            tail = _TAIL.match(text, b)  # every part optional: it always matches, perhaps empty
            pos = tail.end() if tail else b
    return "".join([*out, text[pos:]])


def without_mentions(text: str, refs: Sequence[DocRef], counting: bool = True) -> str:
    """``text`` with the documents it names, and the words that count them ("both EISs"), each put as "it": what
    it says about a document, to look for in that document's sources ("The Goldrush Mine EIS identifies 57
    sites" → "it identifies 57 sites"). ``counting=False`` leaves "both EISs" as written (a search's query: words
    every EIS has pull no document's passages ahead, where a document's name pulls its own cover and introduction)."""
    out = _AROUND.sub("it", marked(text, refs))
    out = _TOGETHER.sub("it", out) if counting else out
    return " ".join(out.replace("\x00", "it").split())


def together(text: str) -> bool:
    """Does a sentence speak of several documents at once: "both EISs", "the two documents", "each project",
    "all three EISs"? A plain plural ("the documents") or "the two alternatives" does not count."""
    return bool(_TOGETHER.search(text))


def compares(question: str) -> bool:
    """Does a question ask about several documents: what ``together`` finds, a plural document ("these EISs"),
    or a word that counts or compares them ("both", "each", "the two", "either", "neither", "compare")?"""
    return together(question) or bool(_PLURAL.search(question)) or bool(_COMPARES.search(question))
