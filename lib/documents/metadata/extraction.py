"""Metadata read from a PDF by rules at ingest, with evidence weighed: the PDF's properties (Title, Author,
Subject, Keywords, dates), the title page found by its layout, labels ("Lead Agency:"), the lines above and below
the title, and the contact block. Each field's candidates are combined in lib/documents/metadata/evidence.py; a
field whose best value is below the threshold is left empty. Only the first pages are read, so it costs
milliseconds whatever the length of the PDF."""
from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import replace
from typing import Any

from lib.documents.metadata.agency_lists import is_agency_line, prepared_by, split_agencies
from lib.documents.metadata.body_states import body_states
from lib.documents.metadata.evidence import THRESHOLD, Candidate, decide, decide_list
from lib.documents.metadata.fields import (
    FIELDS,
    MAX_VALUE_CHARS,
    FieldValue,
    ancestors_of,
    canonical_agency,
    find_agencies,
    pick_lead,
)
from lib.documents.metadata.layout import Line, TitleBlock, mend_words, only_agency, title_block, vocabulary
from lib.documents.metadata.patterns import (
    LABEL_LINE,
    ZIP_LINE,
    classify,
    cover_title,
    find_date,
    find_eis_number,
    keyword_states,
    pdf_date,
    project_title_from,
    states_in,
    type_only,
    usable_title,
)

COVER_PAGES = 5  # the first pages with text that are read: covers, title pages, abstracts, contact blocks
VOCABULARY_PAGES = 20  # the pages whose words tell a broken word from a whole one


def extract(ex: Any) -> dict[str, FieldValue]:
    """Rule-based metadata from an ExtractedPdf. Returns ``{field: FieldValue}`` for the fields found with
    enough confidence; ``source`` is ``pdf_metadata``, ``cover_text`` or ``body_text`` (states only)
    and ``evidence`` says where (``{"page": 3, "line": 2, "rule": …}`` or ``{"property": "Author", …}``). A
    field not found, or found too weakly, is left out: nothing is guessed. It runs inside ingest, so it never
    raises: an unexpected failure gives no metadata rather than no document."""
    return read_or_none(ex) or {}


def read_or_none(ex: Any) -> dict[str, FieldValue] | None:
    """``extract``, but None where the rules failed (as opposed to {} where they found nothing), so a caller
    that would replace stored values keeps them instead."""
    try:
        return _extract(ex)
    except Exception:  # noqa: BLE001 - metadata is a convenience; the document must still be indexed
        logging.getLogger(__name__).warning("metadata extraction failed for %s", getattr(ex, "name", "?"),
                                            exc_info=True)
        return None


class _Cover:
    """The first pages' mended text, their lines (with type where the layout is known) and the title block."""

    def __init__(self, ex: Any) -> None:
        all_pages = list(getattr(ex, "pages", None) or [])[:VOCABULARY_PAGES]
        texts = [(p.number, p.text) for p in all_pages if isinstance(p.text, str) and p.text.strip()]
        counts = {n: Counter(w.lower() for w in re.findall(r"[A-Za-z]+", t)) for n, t in texts}
        self.pages: list[tuple[int, str]] = []
        page_vocab: dict[int, set[str]] = {}  # each page is mended against the words of the other pages
        for number, text in texts[:COVER_PAGES]:
            others = [w for n, c in counts.items() if n != number for w in c]
            page_vocab[number] = vocabulary([" ".join(others)])
            self.pages.append((number, mend_words(text, page_vocab[number])))
        layout = [ln for ln in (getattr(ex, "layout", None) or []) if any(ln.page == n for n, _ in self.pages)]
        self.lines: list[Line] = []
        for number, text in self.pages:
            rows = text.splitlines()
            on_page = [ln for ln in layout if ln.page == number]
            if on_page:
                for ln in on_page:
                    mended = mend_words(ln.text, page_vocab[number])
                    self.lines.append(Line(number, ln.line, mended, ln.size, ln.bold, _line_of(rows, mended, ln.line),
                                           ln.y))
            else:
                self.lines += [Line(number, i + 1, r.strip()) for i, r in enumerate(rows) if r.strip()]
        self.block: TitleBlock | None = title_block(self.lines, dict(getattr(ex, "image_share", None) or {})) \
            if layout else None
        self.title_page = self.block.page if self.block else (self.pages[0][0] if self.pages else None)
        self.text = "\n".join(t for _, t in self.pages)
        self._starts: list[tuple[int, int]] = []  # (offset in self.text, page number)
        offset = 0
        for number, t in self.pages:
            self._starts.append((offset, number))
            offset += len(t) + 1

    def where(self, offset: int) -> dict:
        """The page and line of a character offset in ``self.text``."""
        start, number = max((s for s in self._starts if s[0] <= offset), default=(0, self.title_page or 1))
        return {"page": number, "line": self.text.count("\n", start, offset) + 1}

    def around_title(self) -> tuple[list[Line], list[Line]]:
        """The title page's lines above its title and the next lines below it (by layout, else by the text
        rules' title block); ([], []) where no title was found."""
        if self.block:
            return list(self.block.above), list(self.block.below)
        found = cover_title(self.page_text(self.title_page))
        if not found:
            return [], []
        lines = self.page_lines(self.title_page)
        return ([ln for ln in lines if ln.text_line < found[1] + 1],
                [ln for ln in lines if ln.text_line > found[2] + 1][:8])

    def page_text(self, number: int | None) -> str:
        return next((t for n, t in self.pages if n == number), "")

    def page_lines(self, number: int | None) -> list[Line]:
        return [ln for ln in self.lines if ln.page == number]


def _line_of(rows: list[str], text: str, fallback: int) -> int:
    key = " ".join(text.split())
    for i, r in enumerate(rows):
        if " ".join(r.split()) == key:
            return i + 1
    return fallback


def _at(ln: Line, rule: str) -> dict:
    return {"page": ln.page, "line": ln.text_line, "rule": rule}


def _prop(name: str, rule: str) -> dict:
    return {"property": name, "rule": rule}


def _extract(ex: Any) -> dict[str, FieldValue]:
    meta = {str(k): " ".join(str(v).split()) for k, v in (getattr(ex, "pdf_metadata", None) or {}).items()
            if isinstance(v, str) and v.strip()}
    cover = _Cover(ex)
    out: dict[str, FieldValue] = {}

    title = _title(meta, cover)
    if title:
        out["title"] = title
    doc_type, process = _types(meta, cover, title)
    if doc_type:
        out["document_type"] = doc_type
    if process:
        out["process_type"] = process
    publish = _publish_date(meta, cover)
    if publish:
        out["publish_date"] = publish
    number = _eis_number(meta, cover)
    if process or number:  # the fields of a NEPA review: for any other PDF (an annual report), none is guessed
        if number:
            out["eis_number"] = number
        if title and isinstance(title.value, str) and (pt := project_title_from(title.value)):
            confidence = round((title.confidence or 0) * 0.95, 3)
            if confidence >= THRESHOLD:
                out["project_title"] = replace(title, value=pt, confidence=confidence)
        coop, coop_span = _cooperating(cover)
        if coop:
            out["cooperating_agencies"] = coop
        if (by := prepared_by(cover.text)) is not None:
            out["prepared_by"] = Candidate(by[0][:MAX_VALUE_CHARS], 0.8, "cover_text",
                                           cover.where(by[1]) | {"rule": "Prepared by: label"}).as_field()
        entries = [str(v) for v in (coop.value or [])] if coop else []  # each cooperator, and the agencies it names
        lead = _lead(meta, cover, coop_span, set(entries) | {c for v in entries for _, c, _ in find_agencies(v)})
        if lead:
            out["lead_agency"] = lead
        loc = _label_value(cover.text, r"(?:project\s+)?location", colon=True)
        if loc and (len(loc[0]) > 150 or re.search(r"\b(?:and|or|the|of|in|to|a|an|with)$|[,;]$", loc[0])):
            loc = None  # a heading followed by body text, not a location
        if loc:
            out["location"] = Candidate(loc[0][:MAX_VALUE_CHARS], 0.8, "cover_text",
                                        cover.where(loc[1]) | {"rule": "Location: label"}).as_field()
        states = _states(meta, cover, loc)
        if states is None:  # the cover is silent: a sentence of the first pages that says where the project lies
            named = out.get("project_title")
            states = body_states(cover.pages, str(named.value) if named is not None and named.value else None)
        if states:
            out["states"] = states
        if (volume := _volume_title(cover)) is not None:
            out["volume_title"] = volume
    return {k: out[k] for k in FIELDS if k in out}


_VOLUME_LINE = re.compile(r"^(?:volume|vol\.)\s*(?:[IVX]{1,6}|\d{1,3})(?:\s+of\s+(?:[IVX]{1,6}|\d{1,3}))?"
                          r"(?:\s*[:\-\u2013\u2014]\s*(?P<rest>[^.]{1,90}))?$", re.IGNORECASE)


def _volume_title(cover: _Cover) -> FieldValue | None:
    """A volume's title, from a cover line of its own that starts with "Volume 2" (or "Vol. II"), alone or
    followed by ": Appendices A through M", with the next line when it continues it in the same type ("and the
    Supplemental Draft EIS"). Two different volume lines on the cover: none (which is this one's?)."""
    found: list[tuple[Line, str]] = []
    for i, ln in enumerate(cover.lines):
        text = " ".join(ln.text.split())
        if not _VOLUME_LINE.match(text):
            continue
        nxt = cover.lines[i + 1] if i + 1 < len(cover.lines) else None
        if nxt is not None and nxt.page == ln.page and re.match(r"(?:and|or|of|to|for|the|[a-z])\b", nxt.text.strip()) \
                and abs(nxt.size - ln.size) < 0.6 and len(nxt.text) <= 80:
            text = f"{text} {' '.join(nxt.text.split())}"
        found.append((ln, text))
    if not found or len({t.casefold() for _, t in found}) > 1:
        return None
    ln, text = found[0]
    return Candidate(text[:MAX_VALUE_CHARS], 0.85, "cover_text", _at(ln, "Volume line")).as_field()


# ----- title -----------------------------------------------------------------------------------------------------
def _word_set(s: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", s.lower()) if w not in ("the", "a", "an", "of", "for", "and")}


def _title(meta: dict, cover: _Cover) -> FieldValue | None:
    """The title page's title (by layout, else the text rules) against the PDF's Title property. A property that
    says less than the title page (a short file label) loses to it; one that says the same wins (its word order is
    the author's); two different titles lower each other."""
    cands: list[Candidate] = []
    page_title: Candidate | None = None
    if cover.block and usable_title(cover.block.text) and not _fragment(cover.block.text):
        b = cover.block
        page_title = Candidate(b.text[:MAX_VALUE_CHARS], 0.85 if b.typed else 0.65, "cover_text",
                               _at(b.lines[0], "title page, largest type") | {"to_line": b.lines[-1].text_line})
    elif cover.pages:
        number, text = next(((n, t) for n, t in cover.pages if cover_title(t)), cover.pages[0])
        found = cover_title(text)
        if found and not _fragment(found[0]):
            page_title = Candidate(found[0][:MAX_VALUE_CHARS], 0.7, "cover_text",
                                   {"page": number, "line": found[1] + 1, "to_line": found[2] + 1,
                                    "rule": "cover text around its document type"})
    prop = meta.get("title", "")
    prop_cand = None
    if usable_title(prop) and not _fragment(prop):
        typed = classify(prop) != (None, None)
        prop_cand = Candidate(prop[:MAX_VALUE_CHARS], 0.5 + (0.25 if typed else 0) + (0.1 if len(prop.split()) >= 5 else 0),
                              "pdf_metadata", _prop("Title", "the PDF's Title property"))
    if page_title and prop_cand:
        pw, tw = _word_set(prop_cand.value), _word_set(page_title.value)
        if pw == tw:  # the same title: the property's word order, both sources behind it
            return decide([prop_cand, Candidate(prop_cand.value, page_title.confidence, page_title.source,
                                                page_title.evidence)])
        typed_page = classify(page_title.value) != (None, None)
        if pw < tw or (pw and len(pw & tw) / len(pw) >= 0.6 and len(tw) > len(pw)) or (
                typed_page and len(pw) < 0.6 * len(tw)):
            return page_title.as_field()  # the property is a shorter label for what the title page prints
        if tw < pw and classify(prop_cand.value) != (None, None):
            return prop_cand.as_field() if prop_cand.confidence >= THRESHOLD else None
    cands = [c for c in (page_title, prop_cand) if c]
    return decide(cands)


def _fragment(title: str) -> bool:
    """A title left open ("… Statement for the") or only a document type ("Final Environmental Impact Statement"):
    a piece of the title, never shown as the title."""
    return bool(re.search(r"\b(?:for|of|the|and|to|at|in|on|an?|with|from)$", title.strip(), re.IGNORECASE)) or (
        type_only(title))


# ----- document and process type ---------------------------------------------------------------------------------
def _types(meta: dict, cover: _Cover, title: FieldValue | None) -> tuple[FieldValue | None, FieldValue | None]:
    sources: list[tuple[str, float, str, dict]] = []
    if title and isinstance(title.value, str):
        sources.append((title.value, min(0.9, (title.confidence or 0) + 0.05), title.source or "cover_text",
                        dict(title.evidence or {})))
    if cover.block and (not title or cover.block.text != title.value):
        sources.append((cover.block.text, 0.8, "cover_text", _at(cover.block.lines[0], "title page, largest type")))
    if meta.get("subject"):
        sources.append((meta["subject"], 0.7, "pdf_metadata", _prop("Subject", "the PDF's Subject property")))
    if meta.get("title") and usable_title(meta["title"]) and (not title or title.value != meta["title"]):
        sources.append((meta["title"], 0.6, "pdf_metadata", _prop("Title", "the PDF's Title property")))
    page = cover.page_text(cover.title_page)
    m = _first_type_line(page)
    if m is not None:
        sources.append((m[1], 0.5, "cover_text", {"page": cover.title_page, "line": m[0],
                                                 "rule": "the first document type named on the title page"}))
    types, processes = [], []
    for text, conf, source, where in sources:
        d, p = classify(text)
        where = dict(where)
        if d:
            types.append(Candidate(d, conf, source, where))
        if p:
            processes.append(Candidate(p, conf, source, where))
    doc_type = decide(types)
    if doc_type:  # the process follows the document type chosen
        from_type = [c for c in processes if c.value == classify(str(doc_type.value))[1]] or processes
        return doc_type, decide(from_type)
    return None, decide(processes)


def _first_type_line(text: str) -> tuple[int, str] | None:
    for i, line in enumerate(text.splitlines()):
        if classify(line) != (None, None):
            return i + 1, line
    return None


# ----- dates and numbers -----------------------------------------------------------------------------------------
_DEADLINE = re.compile(r"\b(?:comments?|due|deadline|received|no\s+later|expires?|until|through|ends?|closes?|"
                       r"hearings?|meetings?|period|scoping|workshops?|open\s+house|submit(?:ted)?\s+by)\b", re.IGNORECASE)
_MILESTONE = re.compile(r"\b(?:draft|final|supplemental|notice\s+of\s+intent|noi|deis|feis|record\s+of\s+decision|rod)\b"
                        r"\s*(?:eis|ea|environmental\s+impact\s+statement)?\s*[:–—-]", re.IGNORECASE)


_PUBLISHED = re.compile(r"\b(?:published|publication|issued|released)\b", re.IGNORECASE)
_DRAFTED = re.compile(r"\b(?:manuscript|completed|prepared|revised|printed)\b", re.IGNORECASE)


def _publish_date(meta: dict, cover: _Cover) -> FieldValue | None:
    """A date standing alone on the title page is the publication date; a date in a sentence is weaker, and a
    comment deadline is never one. The PDF's creation date counts, to the month."""
    cands: list[Candidate] = []
    previous: dict[int, Line] = {}
    seen: set[str] = set()
    titled = cover.block is not None or cover_title(cover.page_text(cover.title_page)) is not None
    for ln in cover.lines:
        if ln.text in seen:
            continue  # a running footer or a repeated sentence is one piece of evidence, not many
        seen.add(ln.text)
        before = previous.get(ln.page)
        previous[ln.page] = ln
        d = find_date(ln.text)
        if not d or _DEADLINE.search(ln.text) or (before is not None and _DEADLINE.search(before.text)
                                                  and not find_date(before.text)):
            continue  # a deadline or a hearing, on its line or announced by the line before
        if _MILESTONE.search(ln.text):
            cands.append(Candidate(d, 0.4, "cover_text", _at(ln, "a date beside a stage of the review"), key=d[:7]))
            continue  # "Draft EIS: February 2019": the history of the review, not this document's date
        rest = re.sub(r"\d", "", ln.text)
        alone = len(re.findall(r"[A-Za-z]+", rest)) <= 3
        on_title = titled and ln.page == cover.title_page  # a first page with no title is body text
        if not on_title and not alone:
            continue  # a date in a sentence of an abstract or a foreword: what happened then, not the publication
        conf = (0.85 if alone else 0.55) if on_title else 0.5
        if _PUBLISHED.search(ln.text):
            conf = 0.85  # "Date Published: January 2019", "Issued June 2020"
        elif _DRAFTED.search(ln.text):
            conf = 0.3  # "Manuscript Completed: November 2018": written then, published later
        cands.append(Candidate(d, conf, "cover_text", _at(ln, "a date on the title page" if on_title else
                                                        "a date on the first pages"), key=d[:7]))
    d = pdf_date(meta.get("creationDate", ""))  # not modDate: a PDF saved again years later says nothing
    printed = [int(y) for y in re.findall(r"\b(19[6-9]\d|20\d\d)\b", cover.page_text(cover.title_page))]
    if d and not (printed and max(printed) < int(d[:4])):  # a scan made years after the years its cover prints
        cands.append(Candidate(d[:7], 0.6, "pdf_metadata", _prop("creationDate", "the PDF's creation date (to the "
                                                                "month)"), key=d[:7]))
    best = decide(cands)
    if best is None and cands:  # the months disagree: the year alone, where every candidate agrees on it
        years = {c.value[:4] for c in cands if c.confidence >= 0.5}
        if len(years) == 1:
            best = decide([Candidate(c.value[:4], c.confidence, c.source, c.evidence) for c in cands
                           if c.confidence >= 0.5])
    return best


def _eis_number(meta: dict, cover: _Cover) -> FieldValue | None:
    props = " ; ".join(meta.get(k, "") for k in ("title", "subject", "keywords"))
    if (n := find_eis_number(props)):
        return Candidate(n, 0.85, "pdf_metadata", _prop("Title/Subject/Keywords", "an EIS number in the PDF's "
                                                        "properties")).as_field()
    for ln in cover.lines:
        standalone = len(ln.text) <= 60 and not ln.text.rstrip().endswith(".")
        if (ln.page == cover.title_page and len(ln.text) <= 90 or standalone) and (n := find_eis_number(ln.text)):
            return Candidate(n, 0.8, "cover_text", _at(ln, "an EIS number on the first pages")).as_field()
    return None  # a number in a sentence ("… the Draft EIS (EIS No. 20180123) …") is another document's


# ----- agencies --------------------------------------------------------------------------------------------------
_COOP = r"cooperating\s+(?:federal\s+)?agenc(?:y|ies)|in\s+cooperation\s+with"
_LEAD = r"(?:joint\s+)?lead\s+(?:federal\s+)?agenc(?:y|ies)|responsible\s+(?:federal\s+)?agenc(?:y|ies)"
_PREPARED = r"prepared\s+(?:by|for)|submitted\s+by|issued\s+by"
_CONTACT = re.compile(r"\b(?:contact|for\s+(?:further|more|additional)\s+information|responsible\s+official|"
                      r"nepa\s+coordinator|project\s+manager)\b", re.IGNORECASE)


_COOP_AFTER = re.compile(r"^\s*(.{3,150}?)\s*\(\s*cooperating\s+agency\s*\)\s*$", re.IGNORECASE | re.MULTILINE)


def _cooperating(cover: _Cover) -> tuple[FieldValue | None, tuple[int, int] | None]:
    coop = _label_value(cover.text, _COOP, multi=True)
    if not coop:  # "Tennessee Valley Authority (Cooperating Agency)" on lines of their own
        marked = list(_COOP_AFTER.finditer(cover.text))
        if not marked:
            return None, None
        items = split_agencies("; ".join(m.group(1) for m in marked))
        span = (marked[0].start(), marked[-1].end())
        if not items:
            return None, span
        return (Candidate(items, 0.8, "cover_text", cover.where(span[0]) | {"rule": "(Cooperating Agency) after a "
                                                                           "name"}).as_field(), span)
    items = split_agencies(coop[0])
    if not items:
        return None, (coop[1], coop[2])
    return (Candidate(items, 0.85, "cover_text", cover.where(coop[1]) | {"rule": "Cooperating Agencies: label"})
            .as_field(), (coop[1], coop[2]))


def _lead(meta: dict, cover: _Cover, coop_span: tuple[int, int] | None, coop: set[str]) -> FieldValue | None:
    """Candidates from a "Lead Agency:" label, the title page's first lines (a letterhead or a logo's text above
    the title), the agency lines just below the title, a contact or signature block, the PDF's Author, and, weakly,
    any agency the title page names. Only agencies of the vocabulary count."""
    cands: list[Candidate] = []

    def add(lines: list[Line], conf: float, rule: str, strong: bool = False) -> None:
        """The lead among these lines (a department with its own agency: the agency), cited at its line."""
        found = find_agencies("\n".join(ln.text for ln in lines))
        if not strong:
            found = [f for f in found if f[1] not in coop]
        name = pick_lead(found)
        if name:
            at = next((ln for ln in lines if name in {c for _, c, _ in find_agencies(ln.text)}), lines[0])
            cands.append(Candidate(name, conf, "cover_text", _at(at, rule)))

    def add_label(found: tuple[str, int, int] | None, conf: float, rule: str, strong: bool = False) -> None:
        if found:
            name = pick_lead(find_agencies(found[0].split(";")[0]))
            if name and (strong or name not in coop):
                cands.append(Candidate(name, conf, "cover_text", cover.where(found[1]) | {"rule": rule}))

    add_label(_label_value(cover.text, _LEAD), 0.9, "Lead Agency: label", strong=True)
    add_label(_label_value(cover.text, _PREPARED), 0.6, "Prepared by: label")
    in_coop = _coop_lines(cover, coop_span)
    above, below = cover.around_title()
    # a letterhead or a logo's text: lines that are an agency's name and nothing else (not a filing line)
    top = [ln for ln in above if (ln.page, ln.text_line) not in in_coop and only_agency(ln.text)
           and not find_eis_number(ln.text)][:4]
    if top:
        add(top, 0.75, "the title page's first lines")
    under = [ln for ln in below[:4] if only_agency(ln.text) and (ln.page, ln.text_line) not in in_coop]
    if under:
        add(under, 0.6, "the agency line below the title")
    for block in _contact_blocks(cover, in_coop):
        add(block, 0.6, "the contact or signature block")
        break
    if (author := meta.get("author")) and (agency := canonical_agency(author)):
        cands.append(Candidate(agency, 0.6, "pdf_metadata", _prop("Author", "the PDF's Author property")))
    title_page = [ln for ln in cover.page_lines(cover.title_page) if (ln.page, ln.text_line) not in in_coop
                  and not find_eis_number(ln.text)]
    if title_page:
        add(title_page, 0.35, "an agency the title page names")
    return decide(_support_descendants(cands))


def _coop_lines(cover: _Cover, span: tuple[int, int] | None) -> set[tuple[int, int]]:
    if not span:
        return set()
    first, last = cover.where(span[0]), cover.where(max(span[0], span[1] - 1))
    out = set()
    for ln in cover.lines:
        if (first["page"], first["line"]) <= (ln.page, ln.text_line) <= (last["page"], last["line"]):
            out.add((ln.page, ln.text_line))
    return out


def _contact_blocks(cover: _Cover, skip: set[tuple[int, int]]) -> list[list[Line]]:
    """Agency lines in a contact or signature block: just after a "For further information, contact" line, or
    just above an address (a street line and a ZIP code)."""
    blocks = []
    for number, _ in cover.pages:
        if cover.title_page is not None and not cover.title_page <= number <= cover.title_page + 2:
            continue  # the title page and the next two (a cover sheet, an abstract); not the body
        lines = [ln for ln in cover.page_lines(number) if (ln.page, ln.text_line) not in skip]
        for i, ln in enumerate(lines):
            if _CONTACT.search(ln.text) and len(ln.text) < 90 and not ln.text.rstrip().endswith("."):
                near = [x for x in lines[i:i + 5] if find_agencies(x.text) and len(x.text) < 90]
                if near:
                    blocks.append(near)
            if ZIP_LINE.search(ln.text) and not find_agencies(ln.text):
                near = [x for x in lines[max(0, i - 4):i] if find_agencies(x.text) and only_agency(x.text)]
                if near:
                    blocks.append(near)
    return blocks


def _support_descendants(cands: list[Candidate]) -> list[Candidate]:
    """A department named with one of its own agencies backs that agency ("U.S. Department of Transportation" over
    "Federal Highway Administration"): its evidence counts for the agency, not against it."""
    names = {c.value for c in cands}
    out = []
    for c in cands:
        child = next((n for n in names if c.value in ancestors_of(n)), None)
        out.append(Candidate(child, c.confidence * 0.8, c.source, c.evidence) if child else c)
    return out


# ----- labels and lists ------------------------------------------------------------------------------------------
def _label_value(text: str, label: str, multi: bool = False, colon: bool = False) -> tuple[str, int, int] | None:
    """The text after ``label:`` on its line, and where it starts and ends. A label alone on its line takes the
    next line. With ``multi``, a list continues on the next lines while it ends with a comma, semicolon or "and",
    or while the next line is a known agency's name."""
    tail = r"[ \t]*:[ \t]*(.*)" if colon else r"[ \t]*(?:[:\-–—][ \t]*(.*)|$)"  # colon: "Location:" only
    pat = re.compile(r"^[ \t]*(?:" + label + r")" + tail, re.IGNORECASE | re.MULTILINE)
    m = pat.search(text)
    if not m:
        return None
    value = (m.group(1) or "").strip()
    end = m.end()
    last = value  # the previous physical line of the value
    for line in text[m.end():].split("\n")[1:]:
        s = line.strip()
        if not s or re.match(r"^[A-Z][A-Za-z ]{2,40}:", s) or LABEL_LINE.match(s) or find_date(s):
            break
        if not value or (multi and (re.search(r"(?:[,;&·•]|\band)$", value) or re.match(r"[·•]", s)
                                    or is_agency_line(s))):
            # a list one agency a line: each line its own entry, where the line before is a whole agency's name
            # (not "Bureau of" wrapped onto "Land Management")
            own_line = multi and value and is_agency_line(s) and is_agency_line(last) and \
                not re.search(r"(?:[,;&·•]|\b(?:and|of|the|for|on|in|to))$", last, re.IGNORECASE)
            value = f"{value}; {s}" if own_line else f"{value} {s}".strip()
            last = s
            pos = text.find(line, end)
            end = pos + len(line) if pos >= 0 else end
            continue
        break
    value = " ".join(value.split())
    return (value, m.start(), end) if value else None


# ----- states ----------------------------------------------------------------------------------------------------
_COUNTY_STATE = re.compile(r"\b(?:count(?:y|ies)|parish(?:es)?|boroughs?),\s+[A-Z][a-z]", re.IGNORECASE)
_COUNTY_WORD = re.compile(r"\b(?:count(?:y|ies)|parish(?:es)?|boroughs?)\b", re.IGNORECASE)
_PLACE_LINE = re.compile(r"\b(?:county|counties|parish|borough|state\s+of)\b", re.IGNORECASE)


def _states(meta: dict, cover: _Cover, loc: tuple[str, int, int] | None) -> FieldValue | None:
    """States from the PDF's Keywords, Subject and Title, the title, the place lines next to it, and a Location
    label; a state named elsewhere on the cover (an office's address, a cooperating state agency) is not taken."""
    cands: list[Candidate] = []
    if (codes := keyword_states(meta.get("keywords", ""))):
        cands.append(Candidate(codes, 0.85, "pdf_metadata", _prop("Keywords", "states in the PDF's Keywords")))
    prop_text = meta.get("subject", "") + "\n" + (meta.get("title", "") if usable_title(meta.get("title", "")) else "")
    if (codes := states_in(prop_text, abbreviations=False)):
        cands.append(Candidate(codes, 0.8, "pdf_metadata", _prop("Subject/Title", "states in the PDF's properties")))
    place_lines: list[Line] = []
    if cover.block:
        place_lines = list(cover.block.lines) + [ln for ln in cover.block.below[:3] if _PLACE_LINE.search(ln.text)]
        place_lines += [ln for ln in cover.block.below[3:8] if _COUNTY_STATE.search(ln.text)]
    else:
        found = next(((n, t, f) for n, t in cover.pages if (f := cover_title(t))), None)
        if found:
            number, text, (_, first, last) = found
            rows = text.splitlines()
            idx = list(range(first, last + 1)) + [i for i in range(last + 1, min(len(rows), last + 3))
                                                  if _PLACE_LINE.search(rows[i])]
            place_lines = [Line(number, i + 1, rows[i]) for i in idx]
    for ln in place_lines:
        text = ln.text
        county = list(_COUNTY_WORD.finditer(text))
        if county:  # "Dane, Grant, Iowa and Lafayette Counties, Wisconsin": the state comes after the counties
            text = text[county[-1].end():]
        if (codes := states_in(text)):
            cands.append(Candidate(codes, 0.8, "cover_text", _at(ln, "the title and the place lines by it")))
    if loc and (codes := states_in(loc[0])):
        cands.append(Candidate(codes, 0.8, "cover_text", cover.where(loc[1]) | {"rule": "Location: label"}))
    return decide_list(cands)
