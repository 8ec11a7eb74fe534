"""AppTest: an EIS in volumes on the pages. Ask offers "One EIS, all its volumes" and answers over both volumes,
its history naming the EIS; Search's EIS choice searches only that EIS's volumes and names each found volume; the
Documents page lists the EIS's volumes and offers to take one out."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lib.collection import volumes
from tests.conftest import ROOT, make_text_pdf

T = 300
FALLS = "The falls drop forty meters into the gorge below the proposed hydroelectric intake structure. "
TRAIL = "The portage trail around the falls would be rerouted to the east bank during construction. "
ELSEWHERE = "The falls of another river, far away, are not part of this project and never will be. "


def page(name: str) -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / name), default_timeout=T)


@pytest.fixture
def two_volumes(services, tmp_path):
    """Two small volumes (and a document that is no volume of theirs) in the session's store, grouped as one EIS
    for the test only."""
    made = [services.docs.ingest_file(str(make_text_pdf(tmp_path / f"{n}.pdf", [text * 8])), name=n).doc_id
            for n, text in (("gorge_volume_a", FALLS), ("gorge_volume_b", TRAIL), ("other_river", ELSEWHERE))]
    eis = volumes.group(made[:2], "person")
    yield eis, made
    for d in made[:2]:
        if d in volumes.places():
            volumes.remove(d)


def test_ask_answers_over_every_volume_of_one_eis_and_names_it(two_volumes):
    eis, (a, b, _) = two_volumes
    at = page("ask.py").run()
    at.radio(key="ask_doc_how").set_value("One EIS, all its volumes").run()
    assert not at.exception
    at.selectbox(key="ask_doc_eis").set_value(eis.eis_id).run()
    assert any(c.value == "Volumes: Volume 1; Volume 2" for c in at.caption)
    at.multiselect(key="ask_models").set_value(["local/extractive"]).run()
    at.multiselect(key="ask_modes").set_value(["rag"]).run()
    at.text_area(key="question").input("Where would the portage trail around the falls go?")
    next(x for x in at.button if x.label == "Run").click().run()
    assert not at.exception
    hist = at.dataframe[-1].value
    assert hist["Documents"].iloc[0] == "gorge_volume_a, all 2 volumes"


def test_search_can_keep_to_one_eis_and_names_each_volume(two_volumes):
    eis, (a, b, other) = two_volumes
    at = page("search.py").run()
    at.text_input(key="corpus_query").input("falls")
    next(s for s in at.selectbox if s.label == "EIS").set_value(eis.eis_id)
    next(x for x in at.button if x.label == "Search").click().run()
    assert not at.exception
    found = [t.value for t in at.text if t.value.startswith(("gorge volume", "other river"))]
    assert sorted(found) == ["gorge volume a — Volume 1", "gorge volume b — Volume 2"]  # not the other river


def test_documents_page_lists_the_volumes_and_takes_one_out(two_volumes):
    eis, (a, b, _) = two_volumes
    at = page("documents.py").run()
    table = next(d.value for d in at.dataframe if list(d.value.columns) == ["volume", "title", "file", "pages"])
    assert list(table["file"]) == ["gorge_volume_a", "gorge_volume_b"] and list(table["volume"]) == [1, 2]
    at.selectbox(key="docs_pick").set_value(b).run()
    next(x for x in at.button if x.label.startswith("Take it out of this EIS")).click().run()
    assert not at.exception
    assert [v.doc_id for v in volumes.get(eis.eis_id).volumes] == [a]


def test_open_result_of_an_ingest_selects_the_document_it_indexed(two_volumes, monkeypatch):
    """The jobs panel's "Open result" of an ingest: Documents opens on its list with that document chosen (a walk
    found it opened another). The button's action (pages/_jobs.open_result) is called as the click calls it."""
    from types import SimpleNamespace

    from pages import _jobs

    _, (a, b, other) = two_volumes
    state: dict = {}
    job = SimpleNamespace(job_id="j1", kind="ingest", result={"doc_id": other})
    monkeypatch.setattr(_jobs.jobs, "get", lambda job_id: job)
    monkeypatch.setattr(_jobs.st, "session_state", state)
    monkeypatch.setattr(_jobs.st, "switch_page", lambda target: state.setdefault("went_to", target))
    _jobs.open_result(job)  # type: ignore[arg-type]
    assert state["went_to"] == _jobs.RESULT_PAGES["ingest"] and state["docs_pick"] == other
    at = page("documents.py")
    at.session_state["docs_first_tab"] = state["docs_first_tab"]
    at.session_state["docs_pick"] = state["docs_pick"]
    at.run()
    assert not at.exception
    assert at.selectbox(key="docs_pick").value == other
