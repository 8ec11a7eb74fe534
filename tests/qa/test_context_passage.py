"""What an answer was given, as one record: each context mode's passages stored under the keys answers were always
stored with, read back unchanged, and stored rows of any age or shape read without an error."""
from __future__ import annotations

import json

from lib.documents.pdf import Page
from lib.qa.context_passage import ContextPassage, from_json, to_json
from lib.qa.contexts import gold_context, multi_pdf_context, pdf_context, rag_context


def words(text: str) -> int:
    return len(text.split())


class Chunk:
    def __init__(self, text: str, page_start: int, page_end: int, section: str = "") -> None:
        self.text, self.page_start, self.page_end, self.section = text, page_start, page_end, section


class Hit:
    def __init__(self, chunk: Chunk, score: float, doc_id: str = "", doc_name: str = "") -> None:
        self.chunk, self.score, self.doc_id, self.doc_name = chunk, score, doc_id, doc_name


PAGES = [Page(1, "Cover of the statement."), Page(2, "The road would be 21 miles long."), Page(3, "Noise.")]


def test_each_mode_stores_the_keys_its_answers_were_always_stored_with():
    gold = gold_context("The herd calves on the coastal plain.").passages
    assert [p.as_dict() for p in gold] == [{"page_start": None, "page_end": None,
                                            "text": "The herd calves on the coastal plain."}]
    pdf = pdf_context(PAGES, 100, words).passages
    assert [p.as_dict() for p in pdf] == [{"page_start": 1, "page_end": 3, "text": "3 page(s) of text, 18 tokens",
                                           "kept_through": 3}]
    two = multi_pdf_context([("d1", "Road EIS", PAGES), ("d2", "Mine EIS", PAGES[:1])], 200, words).passages
    assert [set(p.as_dict()) for p in two] == [{"doc_id", "doc_name", "page_start", "page_end", "kept_through",
                                                "text"}] * 2
    assert (two[1].doc_id, two[1].doc_name, two[1].kept_through) == ("d2", "Mine EIS", 1)
    rag = rag_context([Hit(Chunk("The road would be 21 miles long.", 2, 2, "2.1 Roads"), 0.91234, "d1", "Road EIS"),
                       Hit(Chunk("Noise.", 3, 3), 0.5)]).passages
    assert [p.as_dict() for p in rag] == [
        {"n": 1, "doc_id": "d1", "doc_name": "Road EIS", "section": "2.1 Roads", "page_start": 2, "page_end": 2,
         "text": "The road would be 21 miles long.", "score": 0.9123, "chunks": 1},
        {"n": 2, "doc_id": "", "doc_name": "", "section": "", "page_start": 3, "page_end": 3, "text": "Noise.",
         "score": 0.5, "chunks": 1}]
    for p in (*gold, *pdf, *two, *rag):
        assert ContextPassage.from_dict(json.loads(json.dumps(p.as_dict()))) == p
    assert from_json(to_json(rag)) == rag


def test_stored_rows_of_any_shape_are_read_without_an_error():
    # an older row (doc_id null), page numbers as text, a list of headings, junk beside real passages
    raw = json.dumps([{"n": 2, "doc_id": None, "page_start": "7", "page_end": 8.0, "text": "kept",
                       "section": ["3 Air", "3.1 Dust"], "score": "high", "chunks": True},
                      "not a passage", {"text": None, "n": 0},
                      {"text": "far", "page_start": float("inf"), "page_end": float("nan")}])
    assert from_json(raw) == [ContextPassage("kept", 7, 8, section="3 Air › 3.1 Dust", n=2), ContextPassage(""),
                              ContextPassage("far")]
    assert from_json(None) == from_json("") == from_json("{not json") == from_json('{"text": "x"}') == []


def test_pages_name_a_passage_as_its_citation_does():
    assert [ContextPassage("t", 71, 71).pages, ContextPassage("t", 71, 72).pages, ContextPassage("t", 5).pages,
            ContextPassage("t").pages] == ["p. 71", "pp. 71–72", "p. 5", ""]
