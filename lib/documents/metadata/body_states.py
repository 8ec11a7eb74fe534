"""The states where a project lies, read from a sentence of the first pages' body when the cover names none: "The
project area lies in Montana, Idaho and Wyoming." Strict on purpose (a wrong value is worse than an empty one):

- the sentence says where the project is: a locating verb ("is located", "lies", "would extend", "spans",
  "encompasses", "would be built") whose subject is the project, its site or area, "the proposed …", or a word of
  the project's title, not a similar, existing or other one, nor its proponent; or a figure that shows the
  project site ("Figure 1-1 shows the project site … in Coos County, Oregon");
- a state counts only where it is named after the verb as the place ("in Elko County, Nevada", "across portions
  of Colorado and Utah"). Not read: a state in a name or used as a word of description ("the Montana Department
  of Environmental Quality", "the Colorado River", "the Indiana bat", "Utah markets"), a line ("the Texas state
  line"), a state across or off something ("across the river from Portland, Oregon", "off Louisiana", "within 50
  miles of Nevada"), or one after the clause moves on ("…, where the Tribes live in Utah");
- a town's state after "near" or a distance ("12 miles west of Casper, WY") is read only when the sentence places
  the project in no state itself ("in Boone County, Kentucky, near Cincinnati, Ohio" is Kentucky), or where it
  is a line's end ("would extend from a station near Sinclair, Wyoming, … to a station near Boulder City,
  Nevada");
- a clause that hedges or contrasts ("in Nevada or Utah", "rather than California", "not in Washington") gives
  nothing, and so do sentences that disagree (neither's states within the other's).

The value is marked as read from the body (source ``body_text``), with the page, the line and the sentence, at a
confidence below SURE whatever the number of sentences, so a connected model may still correct it."""
from __future__ import annotations

import re
from collections.abc import Sequence

from lib.core.sentences import split_sentences
from lib.documents.metadata.evidence import Candidate
from lib.documents.metadata.fields import FieldValue
from lib.documents.metadata.patterns import state_mentions

CONFIDENCE = 0.7  # shown (above the threshold), but below SURE, so a connected model may replace it
RULE = "a sentence saying where the project lies"

_SUBJECT = re.compile(
    r"\b(?:project|proposed\s+action|action\s+area|(?:project|study|analysis|planning|plan|decision)\s+area|site|"
    r"facility|mine|corridor|route|alignment|pipeline|transmission\s+line|terminal|installation|refuge|"
    r"national\s+forest|reservoir|dam|airport|highway|interchange|bridge|expansion|plant|proposed\s+\S+)s?\b",
    re.IGNORECASE)
# a subject that is not this project: "a similar project", "the closest existing mine", "the project proponent"
_NOT_THIS = re.compile(r"\b(?:similar|existing|other|another|nearest|closest|comparable|previous|former|past|"
                       r"proponent|applicant|sponsor|developer|headquarters|offices?|like|such)\b", re.IGNORECASE)
# between the subject and its verb: a relative clause or another verb ("the site drains to a river that crosses")
_NOT_ITS_VERB = re.compile(r"\b(?:that|which|who|whom|whose|where|when|while|is|are|was|were|has|have|had|drains?|"
                           r"flows?|runs?|connects?)\b", re.IGNORECASE)
_VERB = re.compile(
    r"\b(?:(?:is|are|would\s+be|will\s+be)\s+(?:located|situated|sited)|(?:would|will)\s+be\s+(?:built|"
    r"constructed|developed)|lies|lie|(?:would|will)\s+(?:lie|extend|cross|traverse|span|pass\s+through|occupy)|"
    r"extends|extending|crosses|traverses|spans|encompasses|covers|occupies)\b", re.IGNORECASE)
# "Figure 1-1 shows the project site …": the figure's caption places the project
_FIGURE = re.compile(r"\b(?:figure|map)\s+[\w.-]+\s+(?:shows|depicts|illustrates)\s+(?:the\s+)?(?:location\s+of\s+"
                     r"the\s+)?(?:proposed\s+)?(?:project(?:\s+(?:site|area))?|site|study\s+area|action\s+area)\b",
                     re.IGNORECASE)
# the clause moves on to something else: its states are not the project's
_CLAUSE_END = re.compile(r";|\b(?:where|which|that|who|whose|while|whereas|but|except|and\s+(?:is|are|was|were|has|"
                         r"have|would|will)|to\s+(?:serve|supply|deliver|markets?))\b", re.IGNORECASE)
# a clause that hedges or contrasts: which state is the project's is not said
_UNSURE = re.compile(r"\b(?:or|nor|not|rather\s+than|instead\s+of|unlike|versus|vs|either|whether|could|might)\b",
                     re.IGNORECASE)
# what comes before a state: the place itself ("in", "portions of", the verb) …
_PLACE = re.compile(r"\b(?:in|within|throughout|across|through|into|(?:portions?|parts?|interior|state|areas?|"
                    r"count(?:y|ies))\s+of|spans|crosses|traverses|encompasses|extend|extends|lies|lie|located|"
                    r"situated|sited)\b", re.IGNORECASE)
# … a town used as a point of reference, whose state is the project's only when nothing else is said …
_NEAR = re.compile(r"\b(?:near|(?:north|south|east|west|northeast|northwest|southeast|southwest)\s+of)\b",
                   re.IGNORECASE)
# … or a reference that is not the place at all
_AWAY = re.compile(r"\b(?:outside(?:\s+of)?|adjacent\s+to|across\s+(?:[\w.'-]+\s+){0,4}from|far\s+from|"
                   r"border(?:s|ing)?(?:\s+with)?|opposite|downstream\s+of|upstream\s+of|off(?:shore)?(?:\s+(?:the\s+)?"
                   r"coast\s+of|\s+from|\s+of)?|within\s+[\d,.]+\s+(?:miles?|kilometers?|km)\s+of)\b", re.IGNORECASE)
# a line's ends: "(would) extend … from a station near Sinclair, Wyoming, … to a station near Boulder City, Nevada"
_LINEAR = re.compile(r"(?:would\s+|will\s+)?(?:extend|extends|extending|cross|crosses|traverse|traverses|span|spans)\b",
                     re.IGNORECASE)
_END = re.compile(r"\b(?:from|to)\b", re.IGNORECASE)
_TOWN = re.compile(r"^\s*(?:the\s+(?:town|city|community)\s+of\s+)?[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3},\s*$")
_A_LINE = re.compile(r"^(?:'s)?\s+(?:state\s+)?(?:line|border|boundary)\b", re.IGNORECASE)  # "the Texas state line"
# what may follow a state named as a place: punctuation, the end, "'s", or a small word; a capitalised word makes
# it part of a name ("Montana Department", "Nevada Test Site"), any other word a description ("Indiana bat")
_AS_PLACE = re.compile(r"^(?:$|'s\b|\s*[,.;:)]|\s+(?:and|or|to|from|in|on|at|by|near|where|which|with|that|as|for|"
                       r"between|including|along|within|under|through|into|across|over|via|the|a|an|is|are|was|were|"
                       r"would|will|about|approximately|some|north|south|east|west|northeast|northwest|southeast|"
                       r"southwest|northern|southern|eastern|western|central|but|while|whereas)\b)")
_GENERIC = frozenset(["project", "projects", "proposed", "final", "draft", "environmental", "impact", "statement",
                      "supplemental", "programmatic", "the", "and", "for", "of", "at", "in", "on", "to", "area",
                      "plan", "management", "site"])


def _places(clause: str) -> list[str]:
    """The states a clause (from its locating verb on) names as the place, in order ([] where it names none, or
    hedges)."""
    if _UNSURE.search(clause):
        return []
    mentions = state_mentions(clause)
    described = [not _AS_PLACE.match(clause[end:]) for _, _, end in mentions]
    for i in range(len(mentions) - 2, -1, -1):  # "Nevada and Utah markets": both describe the markets
        between = clause[mentions[i][2]:mentions[i + 1][1]]
        if described[i + 1] and re.fullmatch(r"\s*(?:,|,?\s*and|,?\s*or)\s*", between):
            described[i] = True
    placed: list[str] = []
    near: list[str] = []
    linear = bool(_LINEAR.match(clause))
    for (code, start, end), desc in zip(mentions, described, strict=True):
        if desc or _A_LINE.match(clause[end:]):
            continue  # "Montana Department of …", "the Indiana bat", "the Idaho border"
        before = clause[:start]
        place = max((m.end() for m in _PLACE.finditer(before)), default=-1)
        away = max((m.end() for m in _AWAY.finditer(before)), default=-1)
        close = max((m.end() for m in _NEAR.finditer(before)), default=-1)
        if away >= 0 and away >= place and away >= close:
            continue  # "across the river from Portland, Oregon", "off Louisiana": not the place
        if close >= 0 and close >= place:
            if _TOWN.match(before[close:]):  # "12 miles west of Casper, WY": the town's state
                if linear and _END.search(before[max(place, 0):close]):
                    placed.append(code)  # "would extend from a station near Sinclair, Wyoming, to …": an end
                else:
                    near.append(code)
            continue  # "near Texas", "west of Nevada": not the place
        placed.append(code)
    return list(dict.fromkeys(placed or near))


def _names(project_title: str | None) -> set[str]:
    """The distinctive words of the project's title ("Goldrush", "Wainwright"): the project named by its name."""
    return {w.lower() for w in re.findall(r"[A-Z][A-Za-z]{3,}", project_title or "") if w.lower() not in _GENERIC}


def _about_this_project(lead: list[str], names: set[str]) -> bool:
    """Whether the words before a locating verb are this project as its subject."""
    text = " ".join(lead)
    if _NOT_THIS.search(text):
        return False
    last = [m for m in _SUBJECT.finditer(text)]
    if last:
        return not _NOT_ITS_VERB.search(text[last[-1].end():])
    named = [i for i, w in enumerate(lead) if w.strip(",.()").lower() in names]
    return bool(named) and not _NOT_ITS_VERB.search(" ".join(lead[named[-1] + 1:]))


def _located(sentence: str, names: set[str]) -> list[str]:
    """The states a sentence names as where the project lies ([] where it does not say so)."""
    if (shown := _FIGURE.search(sentence)) is not None:
        rest = sentence[shown.start():]
        end = _CLAUSE_END.search(rest, len(shown.group(0)))
        if codes := _places(rest[: end.start()] if end else rest):
            return codes
    for verb in _VERB.finditer(sentence):
        if not _about_this_project(sentence[: verb.start()].split()[-8:], names):
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
    found: dict[str, Candidate] = {}  # by sentence: one said twice is one piece of evidence
    for number, text in pages:
        for sentence in (s for para in _paragraphs(text) for s in split_sentences(para)):
            if len(sentence) > 600 or sentence in found:  # a run of text without stops (a table, a list)
                continue
            if codes := _located(sentence, names):
                quote = sentence if len(sentence) <= 240 else sentence[:239] + "…"
                found[sentence] = Candidate(codes, CONFIDENCE, "body_text", {
                    "page": number, "line": _line_of(text, sentence), "rule": RULE, "quote": quote})
    if not found:
        return None
    widest = max(found.values(), key=lambda c: len(c.value))
    if any(not set(c.value) <= set(widest.value) for c in found.values()):
        return None  # sentences that disagree: which is the project's?
    return widest.as_field().but(value=sorted(widest.value), confidence=CONFIDENCE,
                                 evidence=dict(widest.evidence) | {"agreeing": len(found)})
