"""Sentence–passage pairs from the sample EIS (its NEPAQuAD gold passages) for the offline support checker, in four
kinds, with the mark a careful reader would give:
- ``paraphrase``: a passage sentence said in other words (supported), written by hand;
- ``elsewhere``: a true sentence from another part of the document (unsupported by this passage), taken from the
  other gold passages;
- ``number``: the passage's own sentence with one number changed (partly supported at most);
- ``mixed``: a true clause from the passage joined to an invented one (partly supported), written by hand.

    passages() -> the 8 distinct passages;  pairs() -> [(kind, sentence, passage index, expected status)]
"""
from __future__ import annotations

import csv
import re
from functools import lru_cache

from lib.core import config
from lib.core.sentences import is_whole, split_sentences, strip_heading

SAMPLE = "eis_Continental_United_States_Interceptor_Site"

PARAPHRASES = [  # (passage, sentence)
    (0, "Federal and state regulatory agencies were also asked to take part during the EIS process."),
    (0, "No formal consultations took place, but informal status meetings were held to gather input."),
    (0, "MDA staff working on the transportation study met with the Ohio Department of Transportation."),
    (1, "Operating the CIS would involve maintaining the facilities, equipment and GBIs so the system stays ready."),
    (1, "GBIs would not be flight tested at the CIS, although the system could take part in ground tests."),
    (1, "Interceptors would be launched only to defend the Nation."),
    (2, "The first deployment alternatives were FCTC Sites 1 and 2, the CRJMTC Site, the FTD Site and the SERE East Site."),
    (2, "If the CIS is deployed, MDA expects to work closely with USACE, USFWS and the host installation to revise the site design."),
    (3, "An adequate workforce would be available for a project the size of the potential CIS deployment."),
    (3, "Local hospitals are available in the area."),
    (4, "The potential CIS footprint at the FTD Site lies only in Jefferson County, New York."),
    (4, "At FTD the CIS would be built as one contiguous site."),
    (5, "About 60 acres of wetlands outside the CIS footprint and within keep out areas would be indirectly impacted."),
    (6, "Working more at night could intensify lighting and noise impacts."),
    (7, "Leaving archeological properties in place would be a potential mitigation."),
]
MIXED = [  # (passage, sentence): a true clause, then an invented one
    (0, "Informal status meetings were held with agencies, and the agencies signed a formal consultation agreement."),
    (1, "Launches would occur only in defense of the Nation, and a test launch is planned every year at the site."),
    (1, "Operations would include maintenance of the GBIs, and the site would also host a public visitor center."),
    (2, "The SERE East Site is near Rangeley, and it was dropped because of its high construction cost."),
    (2, "MDA will work with USACE and USFWS on the site design, and the design will remove all wetland fill."),
    (3, "Local hospitals are available, and a new regional trauma center would be built for the project."),
    (3, "The population is expected to decrease from 2020, and tourism would double during construction."),
    (4, "FTD is located in Lewis and Jefferson Counties, and the site would require a new interstate interchange."),
    (4, "The CIS at FTD would be one contiguous site, and the Army would close the existing airfield."),
    (5, "The FTD CIS footprint has wetlands, and all of them are rated as low quality by the state."),
    (5, "Wetland field studies were conducted for the EIS, and the studies found endangered mussels in every stream."),
    (6, "Other BMPs could still be implemented, and all construction would stop during the bird nesting season."),
    (6, "The military readiness exemption for birds would be invoked, and a new bird sanctuary would be established."),
    (7, "Monitoring of remaining sites during ground disturbance is a mitigation, and the sites would be paved over."),
    (7, "Data would be reviewed with Tribes and SHPO, and the Tribes would receive ownership of the site."),
]


@lru_cache(maxsize=1)
def passages() -> tuple[str, ...]:
    rows = list(csv.DictReader((config.DATA_DIR / "nepa" / "NEPAQuAD1_train.csv").open(encoding="utf-8-sig")))
    return tuple(dict.fromkeys(r["context"] for r in rows if r["EIS_filename"] == SAMPLE))


def _sentences(i: int) -> list[str]:
    out = []
    for s in split_sentences(passages()[i]):
        s = strip_heading(s).lstrip("-–• ").strip()
        if is_whole(s) and len(s.split()) >= 8:
            out.append(s)
    return out


_NUM = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?![\w,]\d)")


def _changed(sentence: str) -> str | None:
    """The sentence with its first number (not a year, not a list number) changed."""
    for m in _NUM.finditer(sentence):
        n = int(m.group(1).replace(",", ""))
        if 1990 <= n <= 2030 or m.start() == 0:
            continue
        new = n * 2 + 7 if n < 100 else n + n // 3
        return sentence[:m.start()] + (f"{new:,}" if "," in m.group(1) else str(new)) + sentence[m.end():]
    return None


def pairs() -> list[tuple[str, str, int, str]]:
    out = [("paraphrase", s, i, "supported") for i, s in PARAPHRASES]
    out += [("mixed", s, i, "partly supported") for i, s in MIXED]
    n = len(passages())
    elsewhere = []
    for i in range(n):  # a sentence of the next passage, checked against this one
        for s in _sentences((i + 1) % n)[:2]:
            elsewhere.append(("elsewhere", s, i, "unsupported"))
    out += elsewhere[:15]
    changed = []
    for i in range(n):
        for s in _sentences(i):
            c = _changed(s)
            if c:
                changed.append(("number", c, i, "partly supported"))
    out += changed[:15]
    return out
