"""Finding documents by metadata in lib (so the pages and the CLI share it): several lead agencies at once, and the
Documents page's sorts with unknown values last."""
from lib.collection.repository import DocInfo
from lib.documents import metadata as M


def _doc(doc_id: str, name: str, pages: int) -> DocInfo:
    return DocInfo(doc_id, name, pages, 1, 1, 1, [], 200, 40, 1, 0.0)


def _meta(**values) -> dict[str, M.FieldValue]:
    out = {k: M.FieldValue() for k in M.FIELDS}
    out |= {k: M.FieldValue(v, "person") for k, v in values.items()}
    return out


DOCS = [_doc("a", "alpha.pdf", 74), _doc("b", "beta.pdf", 300), _doc("c", "gamma.pdf", 12)]
METAS = {"a": _meta(title="Zinc Mine EIS", lead_agency="Missile Defense Agency", publish_date="2017-02"),
         "b": _meta(title="Aspen Pipeline", lead_agency="Bureau of Land Management"),
         "c": _meta(lead_agency="U.S. Forest Service", publish_date="2019")}
TAGS = {"a": ["caribou"], "b": [], "c": ["arctic", "caribou"]}


def test_several_lead_agencies_match_any_of_them_and_abbreviations_count():
    assert M.collection_filter(DOCS, {"lead_agency": ["Missile Defense Agency", "BLM"]}, metas=METAS) == ["a", "b"]
    assert M.collection_filter(DOCS, {"lead_agency": ["Forest Service"], "year": "2019"}, metas=METAS) == ["c"]
    assert M.collection_filter(DOCS, {"lead_agency": "missile"}, metas=METAS) == ["a"]  # one value: as before


def test_sorts_put_unknown_values_last_in_either_direction():
    order = lambda by, desc=False: [d.doc_id for d in M.sort_documents(DOCS, by, METAS, TAGS, desc)]  # noqa: E731
    assert order("Title") == ["b", "c", "a"]  # "Aspen…", "gamma.pdf" (no title: the file name), "Zinc…"
    assert order("Publish date") == ["a", "c", "b"] and order("Publish date", True) == ["c", "a", "b"]
    assert order("Pages", True) == ["b", "a", "c"]
    assert order("Tags") == ["c", "a", "b"]  # "arctic, caribou" < "caribou"; none last
    assert order("Date added", True) == ["c", "b", "a"]


def test_a_document_without_a_title_is_cited_by_its_file_name_in_words():
    citation_name = M.citation_name
    assert citation_name({}, "eis_Continental_United_States_Interceptor_Site.pdf") == \
        "Continental United States Interceptor Site"
    assert citation_name({"title": M.FieldValue("Tongass Plan FEIS")}, "x.pdf") == "Tongass Plan FEIS"
    assert citation_name({"project_title": M.FieldValue("Tongass Plan"), "title": M.FieldValue("FEIS")}, "x.pdf") == \
        "Tongass Plan"
