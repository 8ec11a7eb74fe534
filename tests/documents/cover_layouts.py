"""The metadata conformance set: eighteen EIS-like covers made here as PDFs, varying along the axes real covers
vary (an image cover before the title page, labels or none, the agency above or below the title, programmatic,
supplemental, tiered, regional-summary and two-volume documents, a Record of Decision, an Environmental Assessment,
a non-NEPA annual report, a date only in the PDF's properties, a comment deadline beside the date, a title page
whose text layer broke words in two). Each states
the values a careful reader would write down from the document; None where the document does not say.

    python -m tests.documents.cover_layouts OUT_DIR   # writes the PDFs and expected.csv for `python -m lib metadata-eval`
"""
from __future__ import annotations

import csv
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

# What a careful reader writes down; the columns of expected.csv (lists joined with "; ").
EXPECTED_FIELDS = ("title", "project_title", "lead_agency", "cooperating_agencies", "prepared_by", "document_type",
                   "volume_title", "process_type", "year", "states", "eis_number")


@dataclass
class Case:
    name: str
    pages: list[list[tuple]]  # each page: ("line", text, size[, bold]) | ("gap", points) | ("image", caption) | ("body", text)
    expected: dict
    props: dict = field(default_factory=dict)


def _body(topic: str, place: str) -> list[tuple]:
    """A body page in 10-point type, with the traps a body has: other agencies, states and dates in sentences."""
    text = (
        f"Chapter 1 Purpose and Need. The proposed {topic} would meet the need described by the agency. "
        "The Environmental Protection Agency reviewed the air quality analysis, and consultation with the "
        "U.S. Fish and Wildlife Service under Section 7 of the Endangered Species Act began on March 3, 2009. "
        f"Similar actions elsewhere, in Oregon and Idaho, informed the analysis of {place}. "
        "Alternatives were screened for purpose and need, technical feasibility and environmental effects. "
        "Public scoping meetings were held, and the comments received shaped the range of alternatives. "
        "Water resources, vegetation, wildlife, cultural resources, socioeconomics and environmental justice are "
        "analysed in Chapter 3, with cumulative effects in Chapter 4 and mitigation in Chapter 5. " * 3
    )
    return [("body", text)]


def _cases() -> list[Case]:
    none = dict.fromkeys(EXPECTED_FIELDS)
    return [
        Case("image_cover_regional_summary", [
            [("image", "Cover photo: a cell tow er on a ridge above a river val ley at sun set, with fire fight ers "
                       "beside an ambu lance and a com mand vehicle.")],
            [("gap", 300), ("line", "This page intentionally left blank.", 10)],
            [("line", "First Responder Network Authority", 13),
             ("gap", 30),
             ("line", "Nationwide Public Safety Broadband Network", 16, True),
             ("line", "Final Programmatic Environmental Impact Statement", 16, True),
             ("line", "for the Eastern United States", 16, True),
             ("gap", 20), ("line", "Executive Summary", 14), ("gap", 40), ("line", "June 2017", 12)],
            [("line", "For further information, contact:", 10), ("line", "Amanda Pereira, NEPA Coordinator", 10),
             ("line", "First Responder Network Authority", 10), ("line", "12201 Sunrise Valley Drive, M.S. 243", 10),
             ("line", "Reston, VA 20192", 10), ("gap", 20)] + _body("nationwide network", "the eastern states"),
        ], none | {
            "title": "Nationwide Public Safety Broadband Network Final Programmatic Environmental Impact Statement "
                     "for the Eastern United States",
            "project_title": "Nationwide Public Safety Broadband Network",
            "lead_agency": "First Responder Network Authority", "document_type": "Programmatic Final EIS",
            "process_type": "EIS", "year": "2017"},
            props={"title": "Eastern Executive Summary", "author": "First Responder Network Authority"}),
        Case("labels_agency_above", [
            [("line", "U.S. Department of Transportation", 12), ("line", "Federal Highway Administration", 12),
             ("gap", 30), ("line", "Interstate 11 Corridor", 22, True),
             ("line", "Tier 1 Final Environmental Impact Statement", 18, True),
             ("line", "Maricopa, Pinal and Pima Counties, Arizona", 12), ("gap", 20),
             ("line", "FHWA-AZ-EIS-19-01-F", 11),
             ("line", "Lead Agency: Federal Highway Administration", 11),
             ("line", "Cooperating Agencies: U.S. Army Corps of Engineers,", 11),
             ("line", "Bureau of Land Management, U.S. Fish and Wildlife Service", 11),
             ("gap", 20), ("line", "July 2019", 12)],
            _body("corridor", "the desert"),
        ], none | {
            "title": "Interstate 11 Corridor Tier 1 Final Environmental Impact Statement",
            "project_title": "Interstate 11 Corridor", "lead_agency": "Federal Highway Administration",
            "cooperating_agencies": ["U.S. Army Corps of Engineers", "Bureau of Land Management",
                                     "U.S. Fish and Wildlife Service"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2019", "states": ["AZ"],
            "eis_number": "FHWA-AZ-EIS-19-01-F"}),
        Case("no_labels_agency_above", [
            [("line", "U.S. Department of the Interior", 12), ("line", "Bureau of Land Management", 14, True),
             ("line", "California Desert District", 12), ("gap", 60),
             ("line", "Draft Environmental Impact Statement", 20, True),
             ("line", "for the Palen Solar Energy Project", 20, True), ("gap", 20),
             ("line", "Riverside County, California", 12), ("gap", 40), ("line", "August 2017", 12)],
            _body("solar facility", "the valley"),
        ], none | {
            "title": "Draft Environmental Impact Statement for the Palen Solar Energy Project",
            "project_title": "Palen Solar Energy Project", "lead_agency": "Bureau of Land Management",
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2017", "states": ["CA"]}),
        Case("agency_below_title", [
            [("gap", 40), ("line", "Galveston Bay Park Plan", 22, True),
             ("line", "Draft Environmental Impact Statement", 18, True), ("gap", 30),
             ("line", "U.S. Army Corps of Engineers", 14), ("line", "Galveston District", 12),
             ("line", "Harris and Galveston Counties, Texas", 12), ("gap", 40), ("line", "8/2017", 12)],
            _body("storm surge barrier", "the bay"),
        ], none | {
            "title": "Galveston Bay Park Plan Draft Environmental Impact Statement",
            "project_title": "Galveston Bay Park Plan", "lead_agency": "U.S. Army Corps of Engineers",
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2017", "states": ["TX"]}),
        Case("programmatic_with_number", [
            [("line", "DOE/EIS-0459", 11), ("gap", 40),
             ("line", "Final Programmatic Environmental Impact Statement", 17, True),
             ("line", "for Solar Energy Development", 17, True),
             ("line", "in Six Southwestern States", 17, True), ("gap", 30),
             ("line", "U.S. Department of Energy", 12), ("line", "Office of Energy Efficiency and Renewable Energy", 12),
             ("gap", 40), ("line", "July 2012", 12)],
            _body("solar program", "the southwest"),
        ], none | {
            "title": "Final Programmatic Environmental Impact Statement for Solar Energy Development in Six "
                     "Southwestern States",
            "project_title": "Solar Energy Development in Six Southwestern States",
            "lead_agency": "Department of Energy", "document_type": "Programmatic Final EIS", "process_type": "EIS",
            "year": "2012", "eis_number": "DOE/EIS-0459"}),
        Case("supplemental_draft_logo_text", [
            [("line", "USDA", 26, True), ("line", "United States Department of Agriculture", 9),
             ("line", "Forest Service", 14), ("gap", 40),
             ("line", "Supplemental Draft Environmental Impact Statement", 17, True),
             ("line", "Rim Country Forest Restoration Project", 20, True), ("gap", 20),
             ("line", "Gila and Navajo Counties, Arizona", 12), ("gap", 20),
             ("line", "Cooperating Agencies: Arizona Game and Fish Department; U.S. Fish and Wildlife Service", 9),
             ("gap", 30), ("line", "December 2018", 12)],
            _body("forest restoration", "the plateau"),
        ], none | {
            "title": "Supplemental Draft Environmental Impact Statement Rim Country Forest Restoration Project",
            "project_title": "Rim Country Forest Restoration Project", "lead_agency": "Forest Service",
            "cooperating_agencies": ["Arizona Game and Fish Department", "U.S. Fish and Wildlife Service"],
            "document_type": "Supplemental Draft EIS", "process_type": "EIS", "year": "2018", "states": ["AZ"]}),
        *[Case(f"two_volumes_{n}", [
            [("line", "Alaska LNG Project", 24, True), ("line", "Final Environmental Impact Statement", 18, True),
             ("line", volume, 14), ("gap", 40),
             ("line", "Federal Energy Regulatory Commission", 12), ("line", "Office of Energy Projects", 12),
             ("line", "FERC/EIS-0296F", 11), ("gap", 20),
             ("line", "Cooperating Agencies:", 10), ("line", "U.S. Department of Energy", 10),
             ("line", "U.S. Environmental Protection Agency", 10), ("line", "Bureau of Land Management", 10),
             ("gap", 30), ("line", "March 2020", 12)],
            _body("liquefied natural gas facility", "the North Slope"),
        ], none | {
            "title": "Alaska LNG Project Final Environmental Impact Statement", "project_title": "Alaska LNG Project",
            "lead_agency": "Federal Energy Regulatory Commission",
            "cooperating_agencies": ["Department of Energy", "Environmental Protection Agency",
                                     "Bureau of Land Management"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2020", "states": ["AK"],
            "eis_number": "FERC/EIS-0296F", "volume_title": volume})
          for n, volume in (("volume_1", "Volume 1: Chapters 1 through 4"), ("volume_2", "Volume 2: Appendices A through M"))],
        Case("record_of_decision", [
            [("line", "Record of Decision", 22, True), ("line", "for the Chokecherry and Sierra Madre", 16, True),
             ("line", "Wind Energy Project", 16, True), ("line", "Carbon County, Wyoming", 12), ("gap", 40),
             ("line", "Bureau of Land Management", 12), ("line", "Rawlins Field Office", 12),
             ("line", "1300 North Third Street", 12), ("line", "Rawlins, WY 82301", 12), ("gap", 20),
             ("line", "EIS No. 20120345", 11), ("line", "October 2012", 12)],
            _body("wind farm", "the basin"),
        ], none | {
            "title": "Record of Decision for the Chokecherry and Sierra Madre Wind Energy Project",
            "project_title": "Chokecherry and Sierra Madre Wind Energy Project",
            "lead_agency": "Bureau of Land Management", "document_type": "ROD", "process_type": "EIS",
            "year": "2012", "states": ["WY"], "eis_number": "20120345"}),
        Case("environmental_assessment", [
            [("line", "Federal Aviation Administration", 12), ("gap", 40),
             ("line", "Final Environmental Assessment", 20, True), ("line", "Runway 12-30 Extension", 20, True),
             ("line", "Bozeman Yellowstone International Airport", 16, True),
             ("line", "Gallatin County, Montana", 12), ("gap", 40), ("line", "May 2021", 12)],
            [("body", "Abstract. This EA tiers from the 2010 Final Environmental Impact Statement for the airport "
                      "master plan, and it evaluates the extension of the runway and its safety areas. " * 4)],
            _body("runway extension", "the valley"),
        ], none | {
            "title": "Final Environmental Assessment Runway 12-30 Extension Bozeman Yellowstone International Airport",
            "project_title": "Runway 12-30 Extension Bozeman Yellowstone International Airport",
            "lead_agency": "Federal Aviation Administration", "document_type": "EA", "process_type": "EA",
            "year": "2021", "states": ["MT"]}),
        Case("annual_report_not_nepa", [
            [("line", "Great Lakes Water Authority", 22, True), ("line", "2019 Annual Report", 22, True),
             ("line", "Serving Southeast Michigan", 14), ("gap", 40), ("line", "Published June 2020", 12)],
            [("body", "Letter from the Chief Executive Officer. In 2019 the authority completed an environmental "
                      "assessment of its treatment plants with the U.S. Environmental Protection Agency, and the "
                      "board approved the capital plan for Detroit, Michigan. " * 4)],
            _body("capital plan", "the region"),
        ], none | {"title": "Great Lakes Water Authority 2019 Annual Report", "year": "2020"},
            props={"author": "GLWA Communications"}),
        Case("date_only_in_properties", [
            [("line", "National Park Service", 12), ("line", "U.S. Department of the Interior", 12), ("gap", 40),
             ("line", "Draft Environmental Impact Statement", 20, True), ("line", "General Management Plan", 20, True),
             ("line", "Everglades National Park", 16, True), ("line", "Miami-Dade and Monroe Counties, Florida", 12)],
            _body("management plan", "the park"),
        ], none | {
            "title": "Draft Environmental Impact Statement General Management Plan Everglades National Park",
            "project_title": "General Management Plan Everglades National Park",
            "lead_agency": "National Park Service", "document_type": "Draft EIS", "process_type": "EIS",
            "year": "2015", "states": ["FL"]},
            props={"creationDate": "D:20150315120000-05'00'"}),
        Case("short_label_title_property", [
            [("line", "Alpine Mountain Ski Area Expansion", 20, True),
             ("line", "Final Environmental Impact Statement", 18, True), ("gap", 20),
             ("line", "White River National Forest", 12), ("line", "Eagle County, Colorado", 12),
             ("line", "Forest Service", 12), ("line", "Rocky Mountain Region", 12), ("gap", 40),
             ("line", "September 2016", 12)],
            _body("ski area expansion", "the mountain"),
        ], none | {
            "title": "Alpine Mountain Ski Area Expansion Final Environmental Impact Statement",
            "project_title": "Alpine Mountain Ski Area Expansion", "lead_agency": "Forest Service",
            "document_type": "Final EIS", "process_type": "EIS", "year": "2016", "states": ["CO"]},
            props={"title": "Alpine EIS", "author": "jsmith"}),
        Case("tiered_with_labels", [
            [("line", "U.S. Department of Transportation", 9), ("line", "Federal Railroad Administration", 12, True),
             ("gap", 40), ("line", "Tier 2 Draft Environmental Impact Statement", 18, True),
             ("line", "Dallas to Houston High-Speed Rail", 20, True),
             ("line", "Dallas, Ellis, Navarro and Harris Counties, Texas", 12), ("gap", 20),
             ("line", "Lead Agency: Federal Railroad Administration", 10),
             ("line", "Cooperating Agencies: Surface Transportation Board, U.S. Army Corps of Engineers,", 10),
             ("line", "Environmental Protection Agency", 10), ("gap", 20), ("line", "December 2017", 12)],
            _body("rail line", "the prairie"),
        ], none | {
            "title": "Tier 2 Draft Environmental Impact Statement Dallas to Houston High-Speed Rail",
            "project_title": "Dallas to Houston High-Speed Rail", "lead_agency": "Federal Railroad Administration",
            "cooperating_agencies": ["Surface Transportation Board", "U.S. Army Corps of Engineers",
                                     "Environmental Protection Agency"],
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2017", "states": ["TX"]}),
        Case("programmatic_regional_volume", [
            [("line", "Bureau of Ocean Energy Management", 12), ("gap", 40),
             ("line", "Outer Continental Shelf Oil and Gas", 18, True), ("line", "Leasing Program: 2017-2022", 18, True),
             ("line", "Final Programmatic Environmental Impact Statement", 16, True),
             ("line", "Regional Summary: Alaska", 14), ("gap", 40), ("line", "November 2016", 12)],
            _body("leasing program", "the planning areas"),
        ], none | {
            "title": "Outer Continental Shelf Oil and Gas Leasing Program: 2017-2022 Final Programmatic "
                     "Environmental Impact Statement",
            "project_title": "Outer Continental Shelf Oil and Gas Leasing Program: 2017-2022",
            "lead_agency": "Bureau of Ocean Energy Management", "document_type": "Programmatic Final EIS",
            "process_type": "EIS", "year": "2016", "states": ["AK"]},
            props={"title": "Alaska Regional Summary"}),
        Case("comment_deadline_beside_date", [
            [("line", "U.S. Fish and Wildlife Service", 14), ("gap", 40),
             ("line", "Draft Environmental Impact Statement", 20, True),
             ("line", "Habitat Conservation Plan for the", 18, True), ("line", "Lower Colorado River", 18, True),
             ("line", "Clark County, Nevada", 12), ("gap", 30),
             ("line", "Comments must be received by January 7, 2019", 11), ("line", "November 2018", 12)],
            _body("conservation plan", "the river"),
        ], none | {
            "title": "Draft Environmental Impact Statement Habitat Conservation Plan for the Lower Colorado River",
            "project_title": "Habitat Conservation Plan for the Lower Colorado River",
            "lead_agency": "U.S. Fish and Wildlife Service", "document_type": "Draft EIS", "process_type": "EIS",
            "year": "2018", "states": ["NV"]}),
        Case("image_only_cover_then_labels", [
            [("image", None)],
            [("line", "Final Environmental Impact Statement", 20, True),
             ("line", "Shasta Lake Water Resources Investigation", 18, True), ("line", "Shasta County, California", 12),
             ("gap", 30), ("line", "Lead Agency: Bureau of Reclamation", 11),
             ("line", "Cooperating Agency: U.S. Forest Service", 11), ("gap", 30), ("line", "July 2015", 12)],
            _body("dam raise", "the lake"),
        ], none | {
            "title": "Final Environmental Impact Statement Shasta Lake Water Resources Investigation",
            "project_title": "Shasta Lake Water Resources Investigation", "lead_agency": "Bureau of Reclamation",
            "cooperating_agencies": ["Forest Service"], "document_type": "Final EIS", "process_type": "EIS",
            "year": "2015", "states": ["CA"]}),
        Case("broken_words_on_the_title_page", [
            [("line", "Bureau of Reclamation", 12), ("gap", 40),
             ("line", "Lower Sna ke River Dam Oper ations", 20, True),
             ("line", "Final Environ mental Impact State ment", 18, True),
             ("line", "Whitman County, Washington", 12), ("gap", 40), ("line", "September 2020", 12)],
            [("body", "Chapter 1. The Lower Snake River dams are operated for navigation and power; this chapter "
                      "describes the operations and the need for the action. " * 6)],
            _body("dam operations", "the river"),
        ], none | {
            "title": "Lower Snake River Dam Operations Final Environmental Impact Statement",
            "project_title": "Lower Snake River Dam Operations", "lead_agency": "Bureau of Reclamation",
            "document_type": "Final EIS", "process_type": "EIS", "year": "2020", "states": ["WA"]}),
    ]


CASES = _cases()


def build(case: Case, path: Path) -> Path:
    """Write one case as a PDF: Letter pages, lines in Helvetica (bold where asked) at their sizes, images as a
    full-page picture, body text in 10-point type."""
    doc = pymupdf.open()
    for spec in case.pages:
        page = doc.new_page(width=612, height=792)
        y = 72.0
        for item in spec:
            kind = item[0]
            if kind == "gap":
                y += item[1]
            elif kind == "line":
                _, text, size, *bold = item
                y += size * 1.25
                page.insert_text((72, y), text, fontsize=size, fontname="hebo" if bold and bold[0] else "helv")
            elif kind == "image":
                pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 80), False)
                pix.set_rect(pix.irect, (40, 90, 140))
                page.insert_image(pymupdf.Rect(0, 0, 612, 720), pixmap=pix)
                if item[1]:
                    page.insert_textbox(pymupdf.Rect(72, 730, 540, 790), item[1], fontsize=7)
            elif kind == "body":
                page.insert_textbox(pymupdf.Rect(72, y + 10, 540, 760), item[1], fontsize=10)
    if case.props:
        doc.set_metadata(case.props)
    doc.save(path)
    doc.close()
    return path


def write_set(folder: Path, cases: list[Case] | None = None) -> Path:
    """Every case (this set's, or ``cases``) as ``<name>.pdf`` in ``folder`` and ``expected.csv`` beside them;
    returns the CSV's path."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "expected.csv"
    with out.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["file", *EXPECTED_FIELDS])
        for case in CASES if cases is None else cases:
            build(case, folder / f"{case.name}.pdf")
            row = [case.expected.get(k) for k in EXPECTED_FIELDS]
            w.writerow([f"{case.name}.pdf", *("; ".join(v) if isinstance(v, list) else (v or "") for v in row)])
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.documents.cover_layouts OUT_DIR")
    print(write_set(Path(sys.argv[1])))
