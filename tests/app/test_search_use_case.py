"""The Search use case (lib/app/search.py), without Streamlit: the facets the collection offers, what the filters
keep, and each found document as the results list shows it (the rules the Search page used to apply itself)."""
import pytest

from lib.app import search
from lib.core import UserError


def test_the_facets_are_the_values_the_documents_hold(corpus):
    svc, _, _ = corpus
    facets = search.Collection(svc).facets()
    assert facets == search.Facets(agencies=["Bureau of Land Management", "U.S. Army"], states=["AK", "NY"],
                                   types=["Draft EIS", "Final EIS"], tags=["caribou"], years=[2012, 2019])


def test_the_filters_keep_the_documents_they_name(corpus):
    svc, a, b = corpus
    coll = search.Collection(svc)
    assert not search.Filters().any and coll.scope(search.Filters()) is None  # no filter: the whole collection
    assert coll.scope(search.Filters(states=["AK"])) == [a]
    assert coll.scope(search.Filters(years="2010-2015")) == [b]
    assert coll.scope(search.Filters(tags=["caribou"], types=["Final EIS"])) == [a]
    # the agencies as the list offers them, any of those chosen; with another filter, both must hold
    assert coll.scope(search.Filters(agencies=["U.S. Army"])) == [b]
    assert coll.scope(search.Filters(agencies=["U.S. Army", "Bureau of Land Management"])) == [a, b]
    assert coll.scope(search.Filters(agencies=["U.S. Army"], states=["AK"])) == []
    assert search.Filters(years=" 2015 ", states=["AK"]).where() == {"states": ["AK"], "year": "2015"}
    with pytest.raises(UserError, match="year takes a year or a range"):
        coll.scope(search.Filters(years="last decade"))


def test_a_found_document_is_shown_with_its_title_and_facts(corpus):
    svc, a, b = corpus
    coll = search.Collection(svc)
    results = coll.search("caribou calving grounds", None)
    assert [r.doc_id for r in results] == [a, b]
    shown = coll.shown(results)
    # no title: the name citations give it (its file's, without the extension)
    assert [(f.rank, f.title) for f in shown] == [(1, "Arctic Refuge Leasing Program Final EIS"), (2, "wetland")]
    assert shown[0].facts == ["Final EIS", "Bureau of Land Management", "AK", "2019-09"]
    assert shown[1].facts == ["Draft EIS", "U.S. Army", "NY", "2012"]
    # a document deleted after the search is left out, and the ranks close up
    svc.docs.delete(a)
    assert [(f.rank, f.result.doc_id) for f in search.Collection(svc).shown(results)] == [(1, b)]
