"""How an answer's support check is shown wherever answers are read (Ask, a benchmark item, the Arena's passages
view): the answer with a small mark after each sentence and its evidence on hover, a one-line summary under it,
and, on click, each sentence with its evidence, what differs, and its cited page opened with the evidence
highlighted. Model and document text is escaped everywhere: shown as text, never as HTML or Markdown."""
import html
import re
from collections.abc import Callable, Sequence

import streamlit as st

from lib.qa import support, support_model
from lib.review import support_calibration
from pages._ui import QUOTE_COVER, page_or_notice, plain

MARKS = support.SIGNS
COLOURS = {"supported": "#2e7d32", "partly supported": "#a15c00", "unsupported": "#c62828", "not checked": "#616161"}
CHECKERS = {"offline": "offline check", "judge": "judge model"}

# a source's number -> (document id, its first page, its last page), or None where it has no page to open
Locate = Callable[[int], tuple[str, int, int] | None]


def _evidence_word(m: support.Mark) -> str:
    """What the span is called: evidence where it says the sentence (or part of it), else only the closest span."""
    return "closest span (it does not say this)" if m.status == "unsupported" else "evidence"


def _tip(m: support.Mark) -> str:
    where = f" · {m.page}" if m.page else (f" · source [{m.source}]" if m.source else "")
    tip = f"{m.status}{where}"
    if m.kind == "absence":
        tip += "\na claim that the sources do not say something: no span of text can show that"
    trust = support_model.trust_line(m.status, _expert_figures())
    if trust:
        tip += f"\n{trust}"
    if m.evidence and m.status not in ("no source to check", "not judged"):
        tip += f"\n{_evidence_word(m)}: {m.evidence[:400]}"
    if m.differs:
        tip += "\ndiffers: " + "; ".join(m.differs)
    for note in support.document_notes(m.documents):  # a claim held to the documents it names
        tip += f"\n{note}"
    return tip


def _mark(m: support.Mark) -> str:
    if m.status == support.NO_CLAIM:
        return ""  # a lead-in, a refusal, a remark about the sources: no mark
    colour = COLOURS.get(m.status, "#9e9e9e")
    tip = html.escape(_tip(m), quote=True)
    return (f'<sup title="{tip}" aria-label="{tip}" style="color:{colour};cursor:help;font-size:0.75em;'
            f'margin-left:1px">{MARKS.get(m.status, "?")}</sup>')


_GAP = r"(?:\s*\[[^\]\n]{1,40}\]|\s*\((?:[^()\n]*,\s*)?pp?\.[^)\n]{1,20}\))*\s+"  # markers between words
_TAIL = re.compile(r"(?:[.!?]|\s*\[[^\]\n]{1,40}\]|\s*\((?:[^()\n]*,\s*)?pp?\.[^)\n]{1,20}\))*")


def _find(answer: str, sentence: str, start: int) -> tuple[int, int] | None:
    """Where the sentence stands in the answer as written: its words in order (any white space, markers between
    them), and after them its stop and its markers ("A. [1] (p. 8)", "A [1]."), so the mark goes after those."""
    words = support.bare(sentence).split()
    if not words:
        return None
    words[-1] = words[-1].rstrip(".!?") or words[-1]
    m = re.compile(_GAP.join(re.escape(w) for w in words)).search(answer, start)
    if m is None:
        return None
    tail = _TAIL.match(answer, m.end())
    return m.start(), tail.end() if tail else m.end()


def marked_html(answer: str, marks: Sequence[support.Mark]) -> str:
    """The answer, escaped, with each sentence's mark after it; a sentence not found in the text as written has
    its mark at the end."""
    out, cursor, left = [], 0, []
    for m in marks:
        spot = _find(answer, m.text, cursor)
        if spot is None:
            left.append(m)
            continue
        out += [html.escape(answer[cursor:spot[1]]), _mark(m)]
        cursor = spot[1]
    out.append(html.escape(answer[cursor:]))
    out += [_mark(m) for m in left]
    return f'<div style="white-space:pre-wrap;line-height:1.6">{"".join(out)}</div>'  # the page's own font


def marked_answer(answer: str, marks: Sequence[support.Mark]) -> None:
    """The answer as text with its marks; with no checkable sentence (mode none, a bare yes/no) plain text."""
    if not any(m.status in COLOURS for m in marks):
        st.text(answer)
        return
    st.html(marked_html(answer, marks))


def summary_line(summary: str, checker: str = "offline") -> None:
    st.caption(f"Support ({CHECKERS.get(checker, checker)}): {plain(summary)} — whether each sentence is in its "
               "sources, not whether it answers the question",
               help="\n\n".join(support_model.legend()) if checker == "offline" else None)


@st.cache_data(ttl=120, show_spinner=False)
def _expert_figures() -> dict[str, support_model.MarkFigure] | None:
    """The marks against the experts (Validate's support labels), once they have labelled enough; read at most
    every two minutes."""
    try:
        return support_calibration.expert_mark_figures()
    except Exception:  # noqa: BLE001 - a store that cannot be read leaves the legend with the test figures only
        return None


def legend(experts: dict[str, support_model.MarkFigure] | None = None) -> None:
    """What each mark means and how far to trust it (measured on held-out EIS answers, and against the experts
    once they have labelled enough)."""
    for line in support_model.legend(experts):
        st.caption(plain(line))


def _open_evidence(doc_id: str, first: int, last: int, evidence: str, sentence: str = "") -> None:
    """The evidence's page, the first page of its source that holds it, with the sentence highlighted where the page
    holds it as written (a quote), else the evidence. (A title page or a list has no full stops, so its "sentence"
    of evidence can be the whole page: the quote alone is what the answer took from it.)"""
    quote = support.bare(sentence)
    shown = None
    # the quote on any page of the source first, then the evidence: a quote on its second page is not left for
    # the evidence's highlight on the first
    for text, cover, what in ((quote, QUOTE_COVER, "the quoted words highlighted"), (evidence, 0.0, "evidence highlighted")):
        for number in range(first, last + 1) if text else ():
            got = page_or_notice(doc_id, number, text, cover)
            if got is None:  # the page cannot be shown, and the notice says why
                return
            if shown is None:
                shown = (number, got[0], got[1], what)
            if got[1]:
                shown = (number, got[0], got[1], what)
                break
        if shown is not None and shown[2]:
            break
    if shown is None:
        return
    number, png, lines, what = shown
    st.caption(f"Page {number}" + (f" · {what}" if lines else " · the evidence was not found as written on the page"))
    st.image(png, width="stretch")


def sentence_details(marks: Sequence[support.Mark], key: str, locate: Locate | None = None,
                     citations: dict | None = None, failures: Sequence[dict] = (), numbered: bool = True) -> None:
    """On click: each sentence with its mark, evidence and what differs, and a toggle that opens its page.
    ``numbered``: the sources are numbered [n] (RAG, gold); a full PDF's are its pages, named by page only."""
    with st.expander("Sentence by sentence", expanded=False):
        legend(_expert_figures())
        for i, m in enumerate(marks):
            where = ""
            if m.source:
                where = (f" [{m.source}" + (f", {m.page}" if m.page else "") + "]" if numbered
                         else f" [{m.page or m.source}]")
            if m.status == support.NO_CLAIM:
                st.text(f"(no mark: {m.kind or 'no claim'}) {m.text}")
                continue
            st.text(f"{MARKS.get(m.status, '?')} {m.status}{where}: {m.text}")
            for note in support.document_notes(m.documents):
                st.caption(plain(note))
            if m.evidence and m.status not in ("no source to check", "not judged"):
                st.caption(f"{_evidence_word(m)}: " + plain(m.evidence[:400]) + (
                    " · differs: " + plain("; ".join(m.differs)) if m.differs else ""))
                if m.status == "unsupported":
                    continue  # no page to open: nothing there says it
                spot = locate(int(m.source)) if locate and m.source else None
                if spot and st.toggle(f"Open {m.page or 'the page'} with the evidence highlighted",
                                      key=f"{key}_ev_{i}"):
                    _open_evidence(spot[0], spot[1], spot[2], m.evidence, m.text)
        notes = []
        if citations:
            notes += [f"[{n}] points to no source" for n in citations.get("invalid", [])]
            notes += [f"{x['cited']} cited, but the evidence is in [{x['found_in']}]"
                      for x in citations.get("misattributed", [])]
        if notes:
            st.caption("citations: " + plain("; ".join(notes)))
        if failures:
            st.caption(f"{len(failures)} judge failure(s): " + plain("; ".join(
                f"sentence {f['sentence']}: {f['reason']}" if f.get("sentence") else f["reason"] for f in failures)))

