"""The states where a project lies, read from a sentence of the first pages' body when the cover names none: "The
project area lies in Montana, Idaho and Wyoming." Strict on purpose (a wrong value is worse than an empty one):

- the sentence says where the project is: a locating verb ("is located", "lies", "would extend", "spans",
  "encompasses", "would be built", "is in") with the project, its site or area, "the proposed …", or a word of
  the project's title just before it; or a figure that shows the project site ("Figure 1-1 shows the project
  site … in Coos County, Oregon");
- a state counts only where it is named after the verb as the place ("in Elko County, Nevada", "across portions
  of Colorado and Utah"), not in an agency's or a law's name ("the Montana Department of Environmental
  Quality"), nor after the clause moves on ("…, where the Tribes live in Utah"). A state after a distance or
  "near" is the town's, and read ("12 miles west of Casper, WY"); one across a line or off a coast is not
  ("across the river from The Dalles, Oregon", "off the coast of Brazoria County, Texas", "west of the Texas
  state line");
- sentences that disagree (neither's states within the other's) give nothing.

The value is marked as read from the body (source ``body_text``), with the page, the line and the sentence."""
from __future__ import annotations

import re
from collections.abc import Sequence

from lib.core.sentences import split_sentences
from lib.documents.metadata.evidence import Candidate
from lib.documents.metadata.fields import STATES, FieldValue
from lib.documents.metadata.patterns import states_in

CONFIDENCE = 0.7  # one sentence: shown (above the threshold), but below SURE, so a connected model may fill it
RULE = "a sentence saying where the project lies"

_SUBJECT = re.compile(
    r"\b(?:project|proposed\s+action|action\s+area|(?:project|study|analysis|planning|plan|decision)\s+area|site|"
    r"facility|mine|corridor|route|alignment|pipeline|transmission\s+line|terminal|installation|refuge|"
    r"national\s+forest|reservoir|dam|airport|highway|interchange|bridge|expansion|plant|proposed\s+\S+)s?\b",
    re.IGNORECASE)
_VERB = re.compile(
    r"\b(?:(?:is|are|would\s+be|will\s+be)\s+(?:located|situated|sited)|(?:would|will)\s+be\s+(?:built|"
    r"constructed|developed)|lies|lie|(?:would|will)\s+(?:lie|extend|cross|traverse|span|pass\s+through|occupy)|"
    r"extends|extending|crosses|traverses|spans|encompasses|covers|occupies|is\s+(?:in|within)|are\s+(?:in|within)"
    r")\b", re.IGNORECASE)
# "Figure 1-1 shows the project site …": the figure's caption places the project
_FIGURE = re.compile(r"\b(?:figure|map)\s+[\w.-]+\s+(?:shows|depicts|illustrates)\s+(?:the\s+)?(?:location\s+of\s+"
                     r"the\s+)?(?:proposed\s+)?(?:project(?:\s+(?:site|area))?|site|study\s+area|action\s+area)\b",
                     re.IGNORECASE)
# the clause moves on to something else: its states are not the project's
_CLAUSE_END = re.compile(r";|\b(?:where|which|while|whereas|but|except|and\s+(?:is|are|was|were|has|have|would|will)|"
                         r"to\s+(?:serve|supply|deliver|markets?))\b", re.IGNORECASE)
# what comes before a state: the place itself ("in", "portions of", the verb), or a point of reference ("near")
_PLACE = re.compile(r"\b(?:in|within|throughout|across|through|into|(?:portions?|parts?|interior|state|areas?|"
                    r"count(?:y|ies))\s+of|spans|crosses|traverses|encompasses|extend|extends|lies|lie|located|"
                    r"situated|sited)\b", re.IGNORECASE)
# a point of reference that may be across a line ("12 miles west of Casper, WY" and "near Sinclair, Wyoming" are
# read as the town's state, which is what a reader takes them to say)
_REFERENCE = re.compile(r"\b(?:outside|adjacent\s+to|across\s+(?:the\s+\w+\s+)?from|border(?:s|ing)?(?:\s+with)?|"
                        r"opposite|downstream\s+of|upstream\s+of|off\s+the\s+coast\s+of|offshore\s+(?:of|from))\b",
                        re.IGNORECASE)
_A_LINE = re.compile(r"^(?:'s)?\s+(?:state\s+)?(?:line|border|boundary)\b", re.IGNORECASE)  # "the Texas state line"
_NAMED_BODY = re.compile(r"^(?:\s+State)?\s+(?:Department|Dept\.|Division|Office|Commission|Board|Agency|University|"
                         r"College|Environmental|Game|Fish|Public|Highway|National\s+Guard|Historic|Natural|Water|"
                         r"Geological|Legislature|Governor|Administrative|Code|Statutes?|Revised|Conservation|Parks|"
                         r"Wildlife|Energy|Transportation|Attorney|Supreme|Court|Register)\b")
_GENERIC = frozenset(["project", "projects", "proposed", "final", "draft", "environmental", "impact", "statement", "supplemental", "programmatic", "the", "and", "for", "of", "at", "in", "on", "to", "area", "plan", "management", "site"])


def _places(clause: str) -> list[str]:
    """The states a clause (from its locating verb on) names as the place, in order."""
    codes: list[str] = []
    for code in states_in(clause):
        for m in _mentions(clause, code):
            before = clause[: m[0]]
            if _NAMED_BODY.match(clause[m[1]:]) or _A_LINE.match(clause[m[1]:]):
                continue  # "Montana Department of …", "Washington State Environmental Policy Act", "the Idaho border"
            ref = max((r.end() for r in _REFERENCE.finditer(before)), default=-1)
            place = max((p.end() for p in _PLACE.finditer(before)), default=-1)
            if ref >= 0 and ref >= place:
                continue  # "north of Casper, WY", "near the town of Holbrook, Arizona": a point of reference
            codes.append(code)
            break
    return list(dict.fromkeys(codes))


def _mentions(clause: str, code: str) -> list[tuple[int, int]]:
    """Where a state is named in a clause: its name, or ", XX" after a town."""
    name = STATES.get(code, code)
    out = [(m.start(), m.end()) for m in re.finditer(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", clause)]
    out += [(m.start(1), m.end(1)) for m in re.finditer(rf",\s({code})(?=\s*(?:$|[,.;)]))", clause)]
    return sorted(out)


def _names(project_title: str | None) -> set[str]:
    """The distinctive words of the project's title ("Goldrush", "Wainwright"): the project named by its name."""
    return {w.lower() for w in re.findall(r"[A-Z][A-Za-z]{3,}", project_title or "") if w.lower() not in _GENERIC}


def _located(sentence: str, names: set[str]) -> list[str]:
    """The states a sentence names as where the project lies ([] where it does not say so)."""
    if (shown := _FIGURE.search(sentence)) is not None:
        rest = sentence[shown.start():]
        end = _CLAUSE_END.search(rest, len(shown.group(0)))
        if codes := _places(rest[: end.start()] if end else rest):
            return codes
    for verb in _VERB.finditer(sentence):
        lead = sentence[: verb.start()].split()[-10:]  # the words just before the verb: its subject
        subject = " ".join(lead)
        if not (_SUBJECT.search(subject) or names & {w.strip(",.()").lower() for w in lead}):
            continue
        rest = sentence[verb.start():]
        end = _CLAUSE_END.search(rest, len(verb.group(0)))
        if codes := _places(rest[: end.start()] if end else rest):
            return codes
    return []


def _paragraphs(text: str) -> list[str]:
    """A page's text in runs of prose: a heading line ("1.2 Project Location": short, no closing stop, the next
    line starting in capitals) and a blank line end a run, so a heading is not read into the next sentence."""
    runs: list[list[str]] = [[]]
    rows = [r.strip() for r in text.splitlines()]
    for i, row in enumerate(rows):
        nxt = rows[i + 1] if i + 1 < len(rows) else ""
        if not row or len(row) < 70 and not row.endswith((".", ",", ";", ":")) and nxt[:1].isupper():
            runs.append([])  # a blank line or a heading: not joined to either side
            continue
        runs[-1].append(row)
    return [" ".join(r) for r in runs if r]


def _line_of(page_text: str, sentence: str) -> int:
    """The line of the page where ``sentence`` begins (1 where it cannot be found)."""
    head = " ".join(sentence.split()[:4])
    flat, lines = "", []
    for i, row in enumerate(page_text.splitlines(), start=1):
        lines.append((len(flat), i))
        flat += " ".join(row.split()) + " "
    at = flat.find(head)
    return max((n for start, n in lines if start <= at), default=1) if at >= 0 else 1


def body_states(pages: Sequence[tuple[int, str]], project_title: str | None = None) -> FieldValue | None:
    """The states the first pages' body says the project lies in (``pages``: (number, text) of the first pages),
    or None: no sentence says so, or two sentences disagree."""
    names = _names(project_title)
    found: list[Candidate] = []
    for number, text in pages:
        for sentence in (s for para in _paragraphs(text) for s in split_sentences(para)):
            if len(sentence) > 600:  # a run of text without stops (a table, a list): not a sentence
                continue
            if codes := _located(sentence, names):
                quote = sentence if len(sentence) <= 240 else sentence[:239] + "…"
                found.append(Candidate(codes, CONFIDENCE, "body_text",
                                       {"page": number, "line": _line_of(text, sentence), "rule": RULE,
                                        "quote": quote}))
    if not found:
        return None
    widest = max(found, key=lambda c: len(c.value))
    if any(not set(c.value) <= set(widest.value) for c in found):
        return None  # sentences that disagree: which is the project's?
    confidence = round(1 - (1 - CONFIDENCE) ** len(found), 3)  # each sentence within the widest supports it
    return widest.as_field().but(value=sorted(widest.value), confidence=confidence,
                                 evidence=dict(widest.evidence) | {"agreeing": len(found)})
