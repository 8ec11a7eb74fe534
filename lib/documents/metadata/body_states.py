"""States read from an EIS's body where its cover names none: a sentence in the first pages that says where the
project lies ("The project area lies in Montana, Idaho and Wyoming", "… located in Dane County, Wisconsin",
"… in the states of Utah and Nevada"). Only such a sentence counts: a state named in passing ("Similar actions
elsewhere, in Oregon and Idaho, …"), an office's address or a cooperating state agency is never the project's."""
from __future__ import annotations

import re
from collections.abc import Sequence

from lib.documents.metadata.patterns import states_in

BODY_PAGES = 20  # the first pages: the cover, the abstract and the summary's opening (as VOCABULARY_PAGES)
_SUBJECT = (r"(?:(?:project|study|planning|analysis|plan|program|decision)\s+areas?|(?:the\s+)?(?:proposed\s+)?"
            r"(?:project|action|facility|facilities|mine|pipeline|transmission\s+line|site|sites))")
_VERB = (r"(?:lies|lie|is\s+located|are\s+located|would\s+be\s+located|located|is\s+situated|includes?|spans?|covers?|"
         r"encompass(?:es)?|extends?)")
_PLACE = r"(?:(?:with)?in|across|into|over|through(?:out)?|(?:portions|parts)\s+of)"
# the subject, then (within the same sentence) its verb and a place preposition; the states follow in that sentence
_WHERE = re.compile(rf"\b{_SUBJECT}\b[^.;]{{0,80}}?\b{_VERB}\b[^.;]{{0,40}}?\b{_PLACE}\s+([^.;]{{3,220}})", re.IGNORECASE)
_COUNTY = re.compile(r"\b(?:count(?:y|ies)|parish(?:es)?|boroughs?)\b", re.IGNORECASE)
_STATES_OF = re.compile(r"\b(?:in|across|within)\s+the\s+states?\s+of\s+([^.;]{3,200})", re.IGNORECASE)


def states_from_body(pages: Sequence[tuple[int, str]]) -> tuple[list[str], int, int] | None:
    """The USPS codes a first-pages sentence gives as where the project lies, with its page and line (from 1);
    None where no such sentence names a state."""
    for number, text in pages[:BODY_PAGES]:
        flat = " ".join(text.split())
        for pattern in (_WHERE, _STATES_OF):
            for m in pattern.finditer(flat):
                place = m.group(1)
                county = list(_COUNTY.finditer(place))
                if county:  # "Dane and Iowa Counties, Wisconsin": the state comes after the counties
                    place = place[county[-1].end():]
                codes = states_in(place, abbreviations=False)
                if codes:
                    return sorted(codes), number, _line_of(text, flat[m.start():m.start() + 40])
    return None


def _line_of(text: str, start: str) -> int:
    """The line (from 1) of ``text`` on which a sentence beginning with ``start`` (spaces flattened) begins."""
    words = start.split()[:3]
    for i, line in enumerate(text.splitlines(), start=1):
        if words and " ".join(line.split()).find(" ".join(words[:2])) >= 0:
            return i
    return 1
