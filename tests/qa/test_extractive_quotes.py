"""Every extractive answer over the sample's benchmark questions quotes whole sentences that occur in the sources
it cites, character for character once whitespace is mended, in every mode and scope; with several documents in
scope each citation names its document and no paragraph joins two documents' sentences."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pymupdf
import pytest

from lib.core.sentences import split_sentences
from lib.core.text import PASSAGE_GAP, mend, short_titles
from lib.documents import metadata
from lib.evaluation.benchmark import load_sample_items
from lib.models.base import NON_ANSWERS
from lib.qa import ask as ask_lib
from lib.qa.context_passage import ContextPassage

ROOT = Path(__file__).resolve().parents[2]
OTHER_TITLE = "Tank Closure and Waste Management Environmental Impact Statement for the Hanford Site"
# "sentence [2] (p. 8)", "sentence (p. 8)", "sentence [2] (Short Title (ACR)…, pp. 8–9)"
_QUOTE = re.compile(r"(.+?)\s(?:\[(\d+)\]\s)?\(((?:[^()]|\([^()]*\))*?,\s)?(pp?\.\s(\d+)(?:–(\d+))?)\)(?=\s|$)")


@pytest.fixture(scope="module")
def other_doc(services, tmp_path_factory):
    """A second EIS: the Hanford TC&WM EIS's passages that NEPAQuAD's test set quotes, one per page."""
    with (ROOT / "data" / "nepa" / "NEPAQuAD1_test.csv").open(encoding="utf-8-sig") as fh:
        texts = list(dict.fromkeys(r["context"] for r in csv.DictReader(fh) if "Hanford" in r["context"]))
    path = tmp_path_factory.mktemp("other") / "hanford_tcwm.pdf"
    doc = pymupdf.open()
    for t in texts:
        doc.new_page().insert_textbox(pymupdf.Rect(50, 50, 550, 800), t, fontsize=9)
    doc.set_metadata({"title": OTHER_TITLE})
    doc.save(path)
    return services.docs.ingest_file(str(path))


def _quotes(answer: str) -> list[list[tuple[str, int | None, str, int, int]]]:
    """Per paragraph: (sentence, source number, document short title or "", first page, last page)."""
    out = []
    for para in answer.split("\n\n"):
        para = re.sub(r"^Quotes only:\s", "", para.strip())
        found = [(m.group(1).strip(), int(m.group(2)) if m.group(2) else None, (m.group(3) or "").rstrip(", "),
                  int(m.group(5)), int(m.group(6) or m.group(5))) for m in _QUOTE.finditer(para)]
        assert found and "".join(m.group(0) for m in _QUOTE.finditer(para)).strip() == para, para
        out.append(found)
    return out


def _occurs(sentence: str, source: str) -> bool:
    return mend(sentence) in mend(source)


def test_every_extractive_quote_occurs_whole_in_its_cited_source(services, sample_doc, other_doc):
    items = load_sample_items()
    every = services.docs.list()  # "all" also holds what other tests indexed in this session
    metas = metadata.get_many([d.doc_id for d in every], services.docs.engine)
    names = {d.doc_id: metadata.citation_name(metas[d.doc_id], d.name) for d in every}
    short = short_titles(list(names.values()))
    by_short: dict[str, set[str]] = {}  # two documents of one title (a copy another test indexed) share a name
    for d, n in names.items():
        by_short.setdefault(short[n], set()).add(d)
    pages = {d: {p.number: p.text for p in services.docs.pages(d)} for d in names}
    scopes = {"one": sample_doc.doc_id, "two": [sample_doc.doc_id, other_doc.doc_id], "all": "*"}
    checked = 0
    for i, it in enumerate(items):
        closed = it.question_type == "closed"
        # gold: every sentence of the answer is a sentence of the given passage
        r = ask_lib.ask(it.question, "extractive", "gold", gold=it.context, closed=closed)
        body = re.sub(r"^Quotes only:\s", "", r.answer)
        if body not in NON_ANSWERS:
            for s in split_sentences(body):
                assert _occurs(s, it.context), (it.id, "gold", s)
                checked += 1
        for scope_name, scope in scopes.items():
            if scope_name == "all" and i >= 3:  # the whole collection: a few questions (its PDFs may be many)
                continue
            several = scope_name != "one"
            for mode in ("rag", "pdf"):
                r = ask_lib.ask(it.question, "extractive", mode, services, scope, closed=closed)
                assert not r.error and r.answer not in NON_ANSWERS, (it.id, mode, scope_name, r.answer)
                sources = {c.n: c for c in r.contexts}
                for para in _quotes(r.answer):
                    docs_here = {q[2] for q in para}
                    assert len(docs_here) == 1, ("a paragraph joins two documents", it.id, mode, r.answer)
                    for sentence, n, doc_short, first, last in para:
                        assert bool(doc_short) == several, (it.id, mode, scope_name, r.answer)
                        # the documents the quote's label can name in this scope: one, except where two documents
                        # of the scope share a title (in "all", a copy another test indexed)
                        in_scope = set(scope) if isinstance(scope, list) else set(names) if scope == "*" else {scope}
                        docs = by_short[doc_short] & in_scope if several else {sample_doc.doc_id}
                        assert len(docs) == 1 or (docs and scope == "*"), (it.id, mode, scope_name, doc_short)
                        if mode == "rag":
                            src = sources[n]
                            assert src.doc_id in docs and (src.page_start, src.page_end) == (first, last)
                            docs = {src.doc_id}
                            assert any(_occurs(sentence, piece) for piece in src.text.split(PASSAGE_GAP)), (
                                it.id, scope_name, sentence, src.text)
                        # and in the PDF's own text of the cited pages
                        assert any(_occurs(sentence, "\n".join(pages[d].get(p, "") for p in range(first, last + 1)))
                                   for d in docs), (it.id, mode, scope_name, sentence)
                        checked += 1
    assert checked >= len(items) * 10  # two quotes an answer, in 7 answers an item, most of them quoting


def test_two_chunks_of_one_page_that_do_not_touch_are_never_one_sentence():
    """The lead-agency question once came back as the start of one sentence on p. 8 and the end of another: two
    chunks of the page merged into one source ran together."""
    from lib.core.context_text import context_sentences
    from lib.qa.citations import number_sources

    a = "During these meetings, agencies in attendance included USFWS, USACE, USEPA,"
    b = "consultations with agencies would be held during the permitting phase once a site was selected."
    c = "The lead agency for this EIS is the Missile Defense Agency."
    (src,) = number_sources([ContextPassage(a, 8, 8, doc_id="d"), ContextPassage(b + " " + c, 8, 8, doc_id="d")])
    got = [s.text for s in context_sentences(f"[1] (p. 8)\n{src.text}")]
    assert got == [c]  # a and b are both pieces, and together no sentence of the page


def test_a_short_title_leaves_its_bracketed_acronym_out_so_citations_stay_one_pair_of_brackets():
    from lib.core.text import short_title
    from lib.qa.support import answer_sentences

    title = short_title("Final Environmental Impact Statement for the Tongass Land Management Plan (TLMP) Amendment")
    assert title == "Tongass Land Management Plan Amendment"
    answer = (f"Timber harvest would be reduced on the island. [1] ({title}, p. 8) "
              f"Roads would be closed in winter. [2] ({title}, p. 9)")
    sentences, _ = answer_sentences(answer)
    assert len(sentences) == 2 and all("(p." not in s and "Tongass" in s for s in sentences), sentences


def test_two_volumes_whose_titles_differ_only_in_brackets_keep_them_apart():
    """Volumes 1 and 2 of one EIS both read "Tongass Land Management Plan" once brackets went: a citation could
    not tell them apart. Titles alike but for their brackets keep what the brackets hold; others leave it out."""
    one, two = ("Final EIS for the Tongass Land Management Plan (Volume 1)",
                "Final EIS for the Tongass Land Management Plan (Volume 2)")
    got = short_titles([one, two, "Draft EIS for the Kensington Gold Mine (KGM)"])
    assert got == {one: "Tongass Land Management Plan, Volume 1", two: "Tongass Land Management Plan, Volume 2",
                   "Draft EIS for the Kensington Gold Mine (KGM)": "Kensington Gold Mine"}


def test_a_compound_broken_at_a_line_end_keeps_its_hyphen_where_the_text_writes_it_so():
    """"long-\\nterm" was quoted as "longterm", a word the PDF never prints; a word split to fit its line still
    joins ("wet-\\nlands" → "wetlands")."""
    text = "Long-term monitoring is planned. The long-\nterm effects on wet-\nlands are small; wetlands recover."
    assert mend(text) == "Long-term monitoring is planned. The long-term effects on wetlands are small; wetlands recover."
    assert mend("Effects on wet-\nlands.") == "Effects on wetlands."  # no evidence either way: joined
