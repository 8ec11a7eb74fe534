import pytest

from lib.core.verdict import NO, UNCLEAR, YES, is_negated, looks_closed, parse_verdict

# Answers phrased the way chat models answer yes/no questions about Environmental Impact Statements.
TABLE = [
    # --- short and leading verdicts -----------------------------------------------------------------------
    ("Yes", YES),
    ("yes.", YES),
    ("YES", YES),
    ("Y", YES),
    ("N", NO),
    ("No", NO),
    ("no.", NO),
    ("NO.", NO),
    ("Nope", NO),
    ("Yes, the USFWS took part.", YES),
    ("Yes, the U.S. Fish and Wildlife Service participated in the Section 7 consultation.", YES),
    ("No, the site was not selected.", NO),
    ("No. The EIS states that the preferred alternative avoids the floodplain entirely.", NO),
    ("No - the Draft EIS was published in 2014, not 2012.", NO),
    ("Yes. Section 3.4 describes the wetland delineation performed in 2019.", YES),
    ("Yes it does, according to Chapter 4.", YES),
    ("No it does not.", NO),
    ("Correct, it was.", YES),
    ("Correct.", YES),
    ("Incorrect.", NO),
    ("True", YES),
    ("False", NO),
    ("Indeed, the site was evaluated.", YES),
    ("Absolutely.", YES),
    ("Certainly, the Army consulted the tribes.", YES),
    ("Of course. Table 2-1 lists the agency.", YES),
    ("Certainly not.", NO),
    ("Absolutely not, the EIS says the opposite.", NO),
    ("Not true; the EIS says otherwise.", NO),
    ("Not at all. The EIS identifies no cultural resources in the project area.", NO),
    ("Not according to the Final EIS, which lists only two alternatives.", NO),
    # --- markdown, labels and JSON ------------------------------------------------------------------------
    ("**Yes**", YES),
    ("**Yes** - according to section 2", YES),
    ("**No.** The project area does not contain any designated critical habitat.", NO),
    ("Answer: Yes", YES),
    ("Answer: yes", YES),
    ("Final answer: NO", NO),
    ("Verdict: Yes.", YES),
    ("A: No", NO),
    ("A: Y", YES),
    ('{"verdict": "no"}', NO),
    ('{"answer": "yes", "evidence": "Section 3.5 describes the wetland crossings."}', YES),
    ('```json\n{"verdict": "Yes", "confidence": 0.9}\n```', YES),
    ("**Answer:** No", NO),
    ("**Answer:**\n\nYes\n\n**Explanation:** The EIS states that the USFWS issued a Biological Opinion.", YES),
    ("### Answer\nNo\n\n### Reasoning\nThe passage says the Navy considered and dismissed the northern site.", NO),
    ("Short answer: no. The document says the haul road stays outside the riparian buffer.", NO),
    ("Answer: Unclear - the excerpt does not address tribal consultation.", UNCLEAR),
    ("Final answer: Cannot be determined from the provided context.", UNCLEAR),
    # --- "Based on ..." / "According to ..." openings -----------------------------------------------------
    ("Based on the document, yes, the agency did.", YES),
    ("Based on the excerpt, no.", NO),
    ("Based on the provided context, yes. The EIS explicitly lists the USFWS as a cooperating agency.", YES),
    ("According to the EIS, no. The Army selected the No Action Alternative for the northern training area.", NO),
    ("According to the Final EIS, yes - the Bureau of Land Management is the lead agency.", YES),
    ("Based on the provided context:\n\nYes, the proposed pipeline would cross the Little Miami River using "
     "horizontal directional drilling.", YES),
    ("Based on the information in the passage, the answer is no.", NO),
    # --- long reasoning, then a verdict -------------------------------------------------------------------
    ("The passage says the line crosses wetlands at three locations and that the right-of-way would be cleared. "
     "Therefore, the answer is: Yes.", YES),
    ("The passage describes impacts to wetlands under Executive Order No. 11990 and notes negative impacts to "
     "water quality during construction, so the answer is No.", NO),
    ("The EIS discusses the No Action Alternative and the proposed action. Under the proposed action, the "
     "transmission line right-of-way crosses 4.2 acres of forested wetland.\n\nYes.", YES),
    ("Let me review the passage. It says the agency coordinated with the State Historic Preservation Office "
     "and the Advisory Council.\n\n**Answer: No**", NO),
    ("To answer this question, we need to look at Section 3.7. The section states that no federally listed "
     "species were observed during the 2018 surveys. Therefore, no.", NO),
    ("Step 1: Identify the agency. The passage names the U.S. Army Corps of Engineers.\nStep 2: Check for a "
     "Section 404 permit. The passage states a permit would be required.\nConclusion: Yes.", YES),
    ("1. The EIS identifies three action alternatives.\n2. Alternative B is the preferred alternative.\n"
     "3. Alternative B avoids the wetland complex.\n\nSo, yes, the preferred alternative avoids the wetlands.", YES),
    ("The Draft EIS evaluated noise at 14 receptors. Several receptors would exceed the FTA threshold, which "
     "the document describes as a significant adverse impact. In conclusion, yes.", YES),
    ("The context mentions that the Finding of No Significant Impact was issued in 2011 for the earlier "
     "Environmental Assessment, but this EIS was prepared because impacts could be significant. "
     "So the answer would be no.", NO),
    ("Looking at the passage, it states that the Service concurred with the Navy's determination. Thus, yes, "
     "the USFWS was consulted.", YES),
    ("The question asks whether the project requires an air permit. The EIS notes that emissions are below "
     "de minimis thresholds, so a conformity determination is not required. Final answer: No.", NO),
    ("Did the Army consult the USFWS? Yes. The EIS states that informal consultation began in 2016.", YES),
    ("Did the project avoid all wetlands? No, the preferred alternative would fill 2.3 acres.", NO),
    ("Yes... wait, actually no. The passage says the consultation was with NOAA Fisheries, not the USFWS.", NO),
    ("No. Actually, on re-reading the passage, the answer is yes: Table 4-2 lists the USFWS as a "
     "cooperating agency.", YES),
    ("Yes, at first glance it seems so, but the passage clearly says the site is outside the floodplain. "
     "Therefore, the answer is No.", NO),
    ("It is not clear at first, but the passage mentions a Biological Opinion issued by the USFWS, which "
     "implies formal consultation occurred. So the answer is yes.", YES),
    ("Yes, the EIS addresses environmental justice. However, the passage does not say which census tracts "
     "were analysed.", YES),
    ("No, the passage does not mention consultation with the USFWS.", NO),
    ("Yes, the Army did consult the USFWS.\n\nLet me know if you need more details!", YES),
    ("Yes.\n\nI hope this helps!", YES),
    # --- hedges and cannot-determine ----------------------------------------------------------------------
    ("It is not clear from the passage.", UNCLEAR),
    ("It is not clear from the passage whether the USFWS was consulted.", UNCLEAR),
    ("The passage does not say.", UNCLEAR),
    ("The excerpt does not say.", UNCLEAR),
    ("The provided context does not specify whether a Section 404 permit was obtained.", UNCLEAR),
    ("This cannot be determined from the provided passage.", UNCLEAR),
    ("I cannot determine this from the passage.", UNCLEAR),
    ("There is insufficient information in the excerpt to answer this question.", UNCLEAR),
    ("There is not enough information to answer.", UNCLEAR),
    ("I'm not sure. The passage discusses wetlands but not the transmission line.", UNCLEAR),
    ("Possibly. The EIS mentions a proposed mitigation bank but gives no details.", UNCLEAR),
    ("It depends on which alternative is selected.", UNCLEAR),
    ("Maybe", UNCLEAR),
    ("Probably yes, although the passage is not explicit.", UNCLEAR),
    ("The answer is likely no, but the document is ambiguous.", UNCLEAR),
    ("Yes and no. The northern route avoids wetlands, but the southern route does not.", UNCLEAR),
    ("I cannot give a definitive yes or no based on this excerpt.", UNCLEAR),
    ("The EIS may affect wetlands depending on the final alignment.", UNCLEAR),
    ("Not explicitly. The passage refers to coordination with resource agencies without naming the USFWS.",
     UNCLEAR),
    ("The passage mentions the USFWS but does not state whether formal consultation was initiated.", UNCLEAR),
    ("Based on the provided context, it cannot be determined whether the Navy prepared a Supplemental EIS.",
     UNCLEAR),
    # --- domain words are not verdicts --------------------------------------------------------------------
    ("The project would have negative impacts on wetlands.", UNCLEAR),
    ("The transmission line right-of-way crosses wetlands.", UNCLEAR),
    ("Executive Order No. 11990 requires federal agencies to minimize the destruction of wetlands.", UNCLEAR),
    ("The No Action Alternative would leave the existing facility in place.", UNCLEAR),
    ("Under the no action alternative, the existing road would remain unpaved.", UNCLEAR),
    ("The agency issued a Finding of No Significant Impact (FONSI) in 2009.", UNCLEAR),
    ("The EA concluded with a FONSI, i.e. a finding of no significant impact, for the access road.", UNCLEAR),
    ("The right-of-way would be 150 feet wide.", UNCLEAR),
    ("Yes. Executive Order No. 11990 applies because the right-of-way crosses wetlands.", YES),
    ("No. Under the no action alternative the right-of-way would not be cleared, but that is not the "
     "proposed action.", NO),
    ("According to the EIS, yes: impacts would be negative but temporary.", YES),
    # --- statements without yes/no words ------------------------------------------------------------------
    ("The proposed action would not affect wetlands.", NO),
    ("The Army did consult the USFWS.", YES),
    ("The project will not result in significant impacts.", NO),
    ("The agency did not consult the tribe.", NO),
    ("The pipeline won't cross any perennial streams.", NO),
    ("The Corps didn't issue a Section 404 permit for the staging area.", NO),
    ("The Draft EIS doesn't consider a rail alternative.", NO),
    ("The site isn't located within the 100-year floodplain.", NO),
    ("The facility wasn't in operation during the 2015 survey.", NO),
    ("Cumulative impacts aren't analysed beyond 2030.", NO),
    ("The Navy can't expand the range without a new EIS.", NO),
    ("The proposed route cannot avoid the wetland complex.", NO),
    ("There would be no impacts to cultural resources.", NO),
    ("None of the alternatives would affect the Indiana bat.", NO),
    ("Neither alternative requires relocation of residents.", NO),
    ("The EIS does address environmental justice in Section 3.12.", YES),
    ("According to the EIS, the Army did consult the USFWS under Section 7 of the ESA.", YES),
    ("The EIS indeed evaluates a reduced-footprint alternative.", YES),
    ("According to the EIS, the Army consulted the USFWS.", UNCLEAR),
    ("The preferred alternative would cross 12 wetlands, because the terrain leaves no other route. "
     "Therefore, the project would not avoid wetlands.", NO),
    ("The Army consulted the USFWS, not the NMFS.", UNCLEAR),
    ("Did the EIS evaluate a transit alternative? It did.", YES),
    ("Sure! Based on the passage, the Army did not consult the USFWS.", NO),
    ("No significant impacts to wetlands would occur.", NO),
    ("Given that the pipeline would be bored under the river, no in-water work was needed.", NO),
    # --- chat-model styles --------------------------------------------------------------------------------
    ("Certainly. The answer is no.", NO),
    ("I believe the answer is Yes. The EIS lists the USFWS among the consulted agencies.", YES),
    ("Great question! Based on the provided excerpt from the Final EIS, the answer is **yes** - the Forest "
     "Service prepared a Biological Assessment for the Canada lynx.", YES),
    ("Here's what the passage says:\n\n- The route crosses 3 wetlands\n- HDD would be used at the river\n\n"
     "**Verdict: No** - the route does not avoid all wetlands.", NO),
    ("In summary: no.", NO),
    ("The answer to the question 'Did the Army consult the USFWS?' is yes.", YES),
    ("Answer: N/A", UNCLEAR),
    ('{"answer": true}', YES),
    ('{"answer": false}', NO),
    ("A) Yes", YES),
    ("No; the Navy rejected that site.", NO),
    ("Negative.", NO),
    ("Likely yes.", UNCLEAR),
    ("Probably not.", UNCLEAR),
    ("Not necessarily.", UNCLEAR),
    ("Wait, I need to check. Actually, yes.", YES),
    # --- truth words --------------------------------------------------------------------------------------
    ("That is true.", YES),
    ("That is correct.", YES),
    ("That's right.", YES),
    ("That is incorrect.", NO),
    ("This is not true.", NO),
    ("That statement is not correct.", NO),
    ("It is not correct that the Army prepared it.", NO),
    ("The statement is false.", NO),
    ("That is not false.", YES),
    ("The claim is not incorrect: the EIS does list the USFWS.", YES),
    ("That is not the case.", NO),
    ("That is not the case; the agency prepared an EA, not an EIS.", NO),
    ("The premise of the question is incorrect. The pipeline was rerouted to avoid the refuge.", NO),
    ("It is true that the project would not affect wetlands.", NO),
    ("That is not entirely correct.", UNCLEAR),
    # --- blank --------------------------------------------------------------------------------------------
    ("", UNCLEAR),
    (None, UNCLEAR),
    ("   \n  ", UNCLEAR),
    ("**", UNCLEAR),
]


@pytest.mark.parametrize("text, expected", TABLE)
def test_parse_verdict(text, expected):
    assert parse_verdict(text) == expected


def test_table_is_large_and_covers_all_three_verdicts():
    assert len(TABLE) >= 100
    assert {e for _t, e in TABLE} == {YES, NO, UNCLEAR}


def test_incorrect_is_never_yes():
    for text in ("incorrect", "Incorrect!", "that's incorrect", "INCORRECT."):
        assert parse_verdict(text) == "no"


def test_curly_apostrophes():
    assert parse_verdict("The agency didn\u2019t consult the tribe.") == NO
    assert parse_verdict("That\u2019s correct.") == YES


@pytest.mark.parametrize(
    "sentence, negated",
    [
        ("The applicant didn't obtain a permit.", True),
        ("The site isn't in the floodplain.", True),
        ("The project won't affect the bat.", True),
        ("The agency doesn't expect impacts.", True),
        ("The proposed action would not affect wetlands.", True),
        ("Impacts cannot be avoided.", True),
        ("The species has never been observed on the site.", True),
        ("None of the alternatives would cross the refuge.", True),
        ("Neither alternative would require dredging.", True),
        ("There would be no impacts to wetlands.", True),
        ("No wetlands would be filled.", True),
        ("The Army consulted the USFWS because impacts could not be ruled out.", False),
        ("Executive Order No. 11990 requires federal agencies to avoid impacts to wetlands.", False),
        ("There would be negative impacts.", False),
        ("There would be negative impacts on wetlands during construction.", False),
        ("The No Action Alternative would leave the site unchanged.", False),
        ("Under the no action alternative, the road would remain.", False),
        ("The agency issued a Finding of No Significant Impact.", False),
        ("The buffer would be not less than 100 feet wide.", False),
        ("Impacts include, but are not limited to, noise and dust.", False),
        ("The project would not only affect wetlands but also streams.", False),
        ("The line crosses wetlands, not streams.", False),
        ("The transmission line right-of-way crosses wetlands.", False),
        ("", False),
    ],
)
def test_is_negated(sentence, negated):
    assert is_negated(sentence) is negated


@pytest.mark.parametrize(
    "q, closed",
    [
        ("Did the U.S. Fish and Wildlife Service participate?", True),
        ("Is the site in Ohio?", True),
        ("What alternatives were considered?", False),
        ("How does the proposed action affect wetlands?", False),
        ("Is the site in Ohio or in Michigan?", False),
    ],
)
def test_looks_closed(q, closed):
    assert looks_closed(q) is closed
