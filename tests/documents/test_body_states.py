"""States read from a sentence of the first pages' body where the cover names none (lib/documents/metadata/
body_states.py). These sentences are the rule's development set; its held-out measure is
tests/documents/body_states_heldout.py, read by `python bench/metadata.py`."""
from __future__ import annotations

from pathlib import Path

import pytest

from lib.documents import metadata as M
from lib.documents.metadata import explain
from lib.documents.metadata.body_states import body_states
from lib.documents.metadata.records import empty_record
from lib.documents.pdf import read_pdf_file
from tests.documents.cover_layouts import Case, build

PLACED = [
    ("The project area lies in Montana, Idaho and Wyoming.", ["ID", "MT", "WY"]),
    ("The proposed mine is located approximately 25 miles northwest of Elko, in Elko County, Nevada.", ["NV"]),
    ("The corridor would extend 140 miles from Grand Junction, Colorado to Price, Utah.", ["CO", "UT"]),
    ("The Planning Area encompasses 1.2 million acres in northwestern Montana.", ["MT"]),
    ("FTD Site is located in Lewis and Jefferson Counties in New York.", ["NY"]),
    ("The project site is located in Klickitat County, Washington, across the river from The Dalles, Oregon.",
     ["WA"]),
    ("The site is located 12 miles north of Casper, WY.", ["WY"]),  # the town's state
    ("Figure 1-1 shows the project site on the North Spit of Coos Bay, in Coos County, Oregon.", ["OR"]),
    ("The proposed CISF would be built on private land 32 miles east of Carlsbad, in Lea County, New Mexico.",
     ["NM"]),
    ("Fort Wainwright is located in the interior of Alaska, adjacent to Fairbanks, and is home to the garrison.",
     ["AK"]),  # the project named by its title's word ("Wainwright")
]
NOT_PLACED = [
    "The site is located 40 miles west of the Texas state line.",  # a line, not the place
    "Today, Western Shoshone live on several small reservations and colonies located throughout California, "
    "Nevada, and Utah.",  # not the project
    "Seven federally recognized Tribes are located in, or have former territory in, northern Nevada.",
    "Similar actions elsewhere, in Oregon and Idaho, informed the analysis of the river.",
    "The transmission lines located within the plan area carry power from a station near Fruitland, New Mexico.",
    "The project is located on lands managed by the Montana Department of Natural Resources and Conservation.",
    "The terminal would be located offshore, and gas would be delivered to markets in California.",
    "The proposed Project would be located approximately 30 nautical miles off the coast of Brazoria County, Texas.",
    "Comments may be sent to the project manager at 2850 Youngfield Street, Lakewood, Colorado 80215.",
    "The analysis follows the Washington State Environmental Policy Act.",
    # a skeptical reviewer's sentences, each of which an earlier version read wrongly
    "The project area is within the range of the Indiana bat.",
    "The proposed facility would be located in Nevada rather than California.",
    "The project would be located in Idaho, not in Washington.",
    "The project would be located in Nevada or Utah.",
    "The site is located near Texas.",
    "The project site is located within 50 miles of Nevada.",
    "A similar project is located in Utah.",
    "Solar facilities like this one are located in Nevada and Arizona.",
    "The closest existing mine is located in Elko County, Nevada.",
    "The project proponent is located in Houston, Texas.",
    "The project is in compliance with Texas law.",
    "The project would be located in the Gulf of Mexico off Louisiana.",
    "The site drains to a river that crosses Nevada.",
    "The line would extend from Wyoming to Nevada and Utah markets.",
]
# each reads only the state that is the place, not the one named beside it
ONLY_THE_PLACE = [
    ("The proposed Project is located in Boone County, Kentucky, near Cincinnati, Ohio.", ["KY"]),
    ("The project site is located in Wyandotte County, Kansas, near Kansas City, Missouri.", ["KS"]),
    ("The project area is located in southern New Hampshire, approximately 30 miles north of Boston, "
     "Massachusetts.", ["NH"]),
    ("The airport is located in Vancouver, Washington, across the Columbia River from Portland, Oregon.", ["WA"]),
    ("The proposed facility would be located on the west bank of the Mississippi River, directly across the river "
     "from Natchez, Mississippi, in Concordia Parish, Louisiana.", ["LA"]),
    ("The proposed reservoir is located in the Colorado River basin in Utah, about 10 miles downstream of the "
     "Colorado border.", ["UT"]),
    ("The project is located in Mohave County, Arizona, west of Nevada.", ["AZ"]),
    ("The pipeline would extend 210 miles from a compressor station near Opal, Wyoming, through northeastern Utah "
     "to a meter station near Grand Junction, Colorado.", ["CO", "UT", "WY"]),  # a line's ends are its states
    ("The project area is located in the Washington metropolitan area, in Arlington County, Virginia.", ["VA"]),
]


@pytest.mark.parametrize(("sentence", "states"), ONLY_THE_PLACE)
def test_only_the_state_that_is_the_place(sentence: str, states: list[str]) -> None:
    got = body_states([(2, sentence)], "Cedar Valley Project")
    assert got is not None and got.value == states


@pytest.mark.parametrize(("sentence", "states"), PLACED)
def test_a_sentence_that_places_the_project(sentence: str, states: list[str]) -> None:
    got = body_states([(3, f"1.2 Project Location\n{sentence}\nThe alternatives are described in Chapter 2.")],
                      "Fort Wainwright Stationing")
    assert got is not None
    assert (got.value, got.source, got.evidence["page"], got.evidence["line"]) == (states, "body_text", 3, 2)
    assert got.evidence["quote"] == sentence


@pytest.mark.parametrize("sentence", NOT_PLACED)
def test_states_in_other_roles_are_not_read(sentence: str) -> None:
    assert body_states([(2, sentence)], "Cedar Valley Project") is None


def test_sentences_that_agree_add_up_and_ones_that_disagree_give_nothing() -> None:
    a = "The project area lies in Montana and Idaho."
    b = "The Montana portion of the corridor is located in Lincoln County, Montana."
    got = body_states([(2, a), (4, b)])
    assert got is not None and got.value == ["ID", "MT"] and got.evidence["page"] == 2
    assert got.evidence["agreeing"] == 2 and got.confidence == 0.7 < M.SURE  # agreement never lifts it past SURE
    assert body_states([(2, a), (3, a)]).evidence["agreeing"] == 1  # the same sentence twice is one
    other = "The proposed site is located in Ohio."
    assert body_states([(2, a), (3, other)]) is None  # which is the project's?


def _doc(tmp_path: Path, cover: list[tuple], body: str) -> Path:
    case = Case("t", [cover, [("line", "1.0 Introduction", 14, True), ("body", body)]], {})
    return build(case, tmp_path / "t.pdf")


COVER = [("line", "U.S. Department of the Interior", 12), ("line", "Bureau of Land Management", 14, True),
         ("gap", 60), ("line", "Cedar Valley Mine Project", 22, True),
         ("line", "Draft Environmental Impact Statement", 18, True), ("gap", 40), ("line", "March 2021", 12)]
BODY = ("The Bureau of Land Management prepared this Draft Environmental Impact Statement for the Cedar Valley "
        "Mine Project. Comments may be sent to the Field Manager, 1340 Financial Boulevard, Reno, Nevada 89502. "
        "The project area lies in Elko County, Nevada, about 20 miles south of the Idaho border. The Idaho "
        "Department of Fish and Game commented on the scoping notice.")


def test_the_body_is_read_where_the_cover_is_silent_and_marked_so(tmp_path: Path) -> None:
    m = M.extract(read_pdf_file(_doc(tmp_path, COVER, BODY), 10**9))
    states = m["states"]
    assert (states.value, states.source, states.evidence["page"]) == (["NV"], "body_text", 2)
    record = empty_record() | m
    row = next(r for r in explain.rows(record) if r["name in the standard"] == "states")
    assert (row["value"], row["source"]) == ("NV", "read from the body")
    assert row["where"] == ("p. 2, line 4 · a sentence saying where the project lies: “The project area lies in "
                            "Elko County, Nevada, about 20 miles south of the Idaho border.”")


def test_the_cover_wins_over_the_body(tmp_path: Path) -> None:
    cover = [*COVER[:5], ("line", "Owyhee County, Idaho", 12), *COVER[5:]]
    m = M.extract(read_pdf_file(_doc(tmp_path, cover, BODY), 10**9))
    assert (m["states"].value, m["states"].source) == (["ID"], "cover_text")


def test_the_page_quotes_the_sentence_a_value_was_read_from(tmp_path: Path) -> None:
    """A table cell cuts a long sentence: the panel also says it in full, under the table."""
    m = M.extract(read_pdf_file(_doc(tmp_path, COVER, BODY), 10**9))
    assert explain.from_the_body(empty_record() | m) == [
        "States (NV) read from the body, p. 2: “The project area lies in Elko County, Nevada, about 20 miles south "
        "of the Idaho border.”"]
    assert explain.from_the_body(empty_record()) == []
