"""A held-out metadata conformance set: twelve more EIS-like covers, written without sight of the extractor's rules,
in layouts the first set does not use: all-caps titles, titles broken mid-phrase, the agency only at the foot of
the page or only beside "Prepared by:" or "Responsible Agency:", cooperating agencies in a bulleted run, in a
sentence, in parentheses after the name or on the page after the cover, a title printed over a photograph, a
Federal Register notice of intent, a FONSI, a combined Final EIS and Record of Decision, and the distractors real
covers carry (applicants, project sponsors, consultants, regional-office addresses in another state, telephone
numbers, docket and clearinghouse numbers, photo captions naming other places, manuscript-completed dates).
Each states the values a careful reader would write down from the document; None where the document does not say.

    python -m tests.documents.cover_layouts_heldout OUT_DIR   # writes the PDFs and expected.csv
"""
from __future__ import annotations

import sys
from pathlib import Path

from tests.documents import cover_layouts
from tests.documents.cover_layouts import EXPECTED_FIELDS, Case, _body


def _cases() -> list[Case]:
    none = dict.fromkeys(EXPECTED_FIELDS)
    return [
        # NRC license-renewal supplement to the GEIS: report number and supplement number above the title, the
        # agency only as a logo block at the foot, the publication date on the page after the cover, beside an
        # earlier "Manuscript Completed" date and a Washington, DC address.
        Case("nrc_license_renewal_supplement", [
            [("line", "NUREG-1437", 11), ("line", "Supplement 58", 11), ("gap", 50),
             ("line", "Generic Environmental Impact Statement", 18, True),
             ("line", "for License Renewal of Nuclear Plants", 18, True), ("gap", 10),
             ("line", "Supplement 58", 16, True),
             ("line", "Regarding River Bend Station, Unit 1", 16, True), ("gap", 20),
             ("line", "Final Report", 14), ("gap", 280),
             ("line", "U.S.NRC", 20, True), ("line", "United States Nuclear Regulatory Commission", 9),
             ("line", "Protecting People and the Environment", 8)],
            [("line", "Manuscript Completed: November 2018", 10), ("line", "Date Published: January 2019", 10),
             ("gap", 10), ("line", "Prepared by:", 10), ("line", "Office of Nuclear Reactor Regulation", 10),
             ("line", "U.S. Nuclear Regulatory Commission", 10), ("line", "Washington, DC 20555-0001", 10),
             ("gap", 20)] + _body("license renewal", "the river bend"),
        ], none | {
            "prepared_by": "Office of Nuclear Reactor Regulation, U.S. Nuclear Regulatory Commission",
            "title": "Generic Environmental Impact Statement for License Renewal of Nuclear Plants Supplement 58 "
                     "Regarding River Bend Station, Unit 1",
            "project_title": "River Bend Station, Unit 1",
            "lead_agency": "Nuclear Regulatory Commission", "document_type": "Supplemental Final EIS",
            "process_type": "EIS", "year": "2019"},
            props={"title": "NUREG-1437 S58", "author": "NRC/NRR/DREX"}),

        # FERC natural gas pipeline: all-caps agency and title, applicant and docket number as distractors,
        # counties in two states (one of them "West Virginia"), cooperating agencies run together with middle dots.
        Case("ferc_pipeline_all_caps_bullets", [
            [("line", "FEDERAL ENERGY REGULATORY COMMISSION", 14, True), ("line", "OFFICE OF ENERGY PROJECTS", 11),
             ("line", "Washington, DC 20426", 10), ("gap", 50),
             ("line", "APPALACHIAN CONNECTOR PROJECT", 20, True),
             ("line", "DRAFT ENVIRONMENTAL IMPACT STATEMENT", 16, True), ("gap", 20),
             ("line", "Allegheny Midstream Company, LLC", 11), ("line", "Docket No. CP22-15-000", 11),
             ("line", "FERC/EIS-0322D", 11), ("gap", 10),
             ("line", "Wetzel and Doddridge Counties, West Virginia", 11),
             ("line", "Greene County, Pennsylvania", 11), ("gap", 30),
             ("line", "Cooperating Agencies", 10, True),
             ("line", "U.S. Army Corps of Engineers \u00b7 USDA Forest Service \u00b7", 10),
             ("line", "West Virginia Department of Environmental Protection", 10), ("gap", 30),
             ("line", "August 2022", 12)],
            _body("pipeline and compressor station", "the ridges"),
        ], none | {
            "title": "Appalachian Connector Project Draft Environmental Impact Statement",
            "project_title": "Appalachian Connector Project", "lead_agency": "Federal Energy Regulatory Commission",
            "cooperating_agencies": ["U.S. Army Corps of Engineers", "Forest Service",
                                     "West Virginia Department of Environmental Protection"],
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2022", "states": ["WV", "PA"],
            "eis_number": "FERC/EIS-0322D"},
            props={"title": "CP22-15 DEIS", "author": "FERC"}),

        # Navy training and testing EIS/OEIS: the title printed over a full-page photograph with a caption, the
        # agency at the foot of the photo, the lead and cooperating agencies on the abstract page that follows.
        Case("navy_training_title_over_photo", [
            [("image", "Cover photo: The guided-missile destroyer USS Sampson (DDG 102) transits the Pacific Ocean "
                       "during a composite training unit exercise. U.S. Navy photo by Mass Communication "
                       "Specialist 2nd Class."),
             ("line", "Hawaii-Southern California", 24, True), ("line", "Training and Testing", 24, True),
             ("gap", 10), ("line", "Draft Environmental Impact Statement/", 16, True),
             ("line", "Overseas Environmental Impact Statement", 16, True), ("gap", 20),
             ("line", "October 2017", 12), ("gap", 400), ("line", "Department of the Navy", 14, True)],
            [("line", "Abstract", 12, True), ("gap", 6),
             ("line", "Designation: Draft Environmental Impact Statement/Overseas EIS", 10),
             ("line", "Title of Proposed Action: Hawaii-Southern California Training and Testing", 10),
             ("line", "Project Location: Hawaii and Southern California", 10),
             ("line", "Lead Agency for the EIS/OEIS: Department of the Navy", 10),
             ("line", "Cooperating Agency: National Marine Fisheries Service", 10),
             ("line", "Point of Contact: Naval Facilities Engineering Command, Southwest", 10),
             ("line", "1220 Pacific Highway, San Diego, CA 92132", 10), ("gap", 10)]
            + _body("training and testing activities", "the range complexes"),
        ], none | {
            "title": "Hawaii-Southern California Training and Testing Draft Environmental Impact Statement/Overseas "
                     "Environmental Impact Statement",
            "project_title": "Hawaii-Southern California Training and Testing", "lead_agency": "Department of the Navy",
            "cooperating_agencies": ["National Marine Fisheries Service"], "document_type": "Draft EIS",
            "process_type": "EIS", "year": "2017", "states": ["HI", "CA"]}),

        # USACE navigation (dredging) study: an integrated report whose title breaks mid-phrase, the agency only
        # beside "Prepared by:", a state port authority as non-federal sponsor, an address, and a date as MM/YYYY.
        Case("usace_integrated_report_prepared_by", [
            [("gap", 30), ("line", "Norfolk Harbor Navigation", 22, True), ("line", "Improvements", 22, True),
             ("gap", 10), ("line", "Draft Integrated General Reevaluation", 16),
             ("line", "Report and Environmental Impact Statement", 16), ("gap", 10),
             ("line", "City of Norfolk, Virginia", 12), ("gap", 200),
             ("line", "Prepared by: U.S. Army Corps of Engineers, Norfolk District", 10),
             ("line", "Non-Federal Sponsor: Virginia Port Authority", 10),
             ("line", "803 Front Street, Norfolk, VA 23510", 10), ("gap", 20), ("line", "04/2022", 12)],
            _body("channel deepening and dredged material placement", "the harbor"),
        ], none | {
            "prepared_by": "U.S. Army Corps of Engineers, Norfolk District",
            "title": "Norfolk Harbor Navigation Improvements Draft Integrated General Reevaluation Report and "
                     "Environmental Impact Statement",
            "project_title": "Norfolk Harbor Navigation Improvements", "lead_agency": "U.S. Army Corps of Engineers",
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2022", "states": ["VA"]},
            props={"title": "Microsoft Word - NHNI_DraftGRR_EIS_v12.docx", "author": "E1PDLJBM"}),

        # FTA transit project: a combined Final EIS and Record of Decision, a local project sponsor, a consultant
        # line and a line of statute citations.
        Case("fta_combined_feis_rod", [
            [("line", "U.S. Department of Transportation", 10), ("line", "Federal Transit Administration", 13, True),
             ("line", "Region 5", 10), ("gap", 40), ("line", "Red Line Extension Project", 24, True),
             ("line", "Final Environmental Impact Statement", 17, True), ("line", "and Record of Decision", 17, True),
             ("line", "Cook County, Illinois", 12), ("gap", 30),
             ("line", "Project Sponsor: Chicago Transit Authority", 11),
             ("line", "567 West Lake Street, Chicago, IL 60661", 10),
             ("line", "Prepared with assistance from AECOM", 10),
             ("line", "Prepared pursuant to 42 U.S.C. 4321 et seq. and 23 U.S.C. 139", 9), ("gap", 30),
             ("line", "August 2022", 12)],
            [("body", "This combined Final Environmental Impact Statement and Record of Decision was prepared under "
                      "23 U.S.C. 139(n)(2), which directs the lead agency to combine the final EIS and the ROD "
                      "where practicable. The Draft EIS was published in January 2016. " * 3)],
            _body("heavy rail extension", "the far south side"),
        ], none | {
            "title": "Red Line Extension Project Final Environmental Impact Statement and Record of Decision",
            "project_title": "Red Line Extension Project", "lead_agency": "Federal Transit Administration",
            "document_type": "Final EIS", "process_type": "EIS", "year": "2022", "states": ["IL"]}),

        # BIA tribal fee-to-trust: the agency only after "Responsible Agency:", a regional-office address, a tribe,
        # a city and a county among the cooperating agencies, a contact with a telephone number, a consultant,
        # and a full "Month Day, Year" date.
        Case("bia_responsible_agency_label", [
            [("line", "Final Environmental Impact Statement", 18, True), ("gap", 10),
             ("line", "Wilton Rancheria Fee-to-Trust", 20, True), ("line", "and Casino Project", 20, True),
             ("line", "Sacramento County, California", 12), ("gap", 40),
             ("line", "Responsible Agency:", 11, True), ("line", "Bureau of Indian Affairs, Pacific Regional Office", 11),
             ("line", "2800 Cottage Way, Sacramento, California 95825", 11), ("gap", 12),
             ("line", "Cooperating Agencies: National Indian Gaming Commission,", 10),
             ("line", "Wilton Rancheria, City of Elk Grove, Sacramento County", 10), ("gap", 12),
             ("line", "For further information contact: Dan Hanley, Environmental", 10),
             ("line", "Protection Specialist, (916) 978-6165", 10),
             ("line", "Prepared with assistance from Acorn Environmental", 10), ("gap", 30),
             ("line", "December 14, 2016", 12)],
            _body("trust acquisition and casino resort", "the parcel"),
        ], none | {
            "title": "Final Environmental Impact Statement Wilton Rancheria Fee-to-Trust and Casino Project",
            "project_title": "Wilton Rancheria Fee-to-Trust and Casino Project",
            "lead_agency": "Bureau of Indian Affairs",
            "cooperating_agencies": ["National Indian Gaming Commission", "Wilton Rancheria", "City of Elk Grove",
                                     "Sacramento County"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2016", "states": ["CA"]}),

        # BOEM offshore wind: a photo cover whose caption names another state, then a title page with BOEM's
        # report number at the top, "Supplement to the Draft" and the agency at the foot with an office address.
        Case("boem_offshore_wind_supplement", [
            [("image", "Cover: turbines of the Block Island Wind Farm off the coast of Rhode Island. "
                       "Photo courtesy of Deepwater Wind.")],
            [("line", "OCS EIS/EA BOEM 2020-025", 10), ("gap", 60), ("line", "Vineyard Wind 1", 24, True),
             ("line", "Offshore Wind Energy Project", 24, True), ("gap", 10),
             ("line", "Supplement to the Draft", 16), ("line", "Environmental Impact Statement", 16), ("gap", 20),
             ("line", "June 2020", 12), ("gap", 250), ("line", "U.S. Department of the Interior", 11),
             ("line", "Bureau of Ocean Energy Management", 12, True), ("line", "Office of Renewable Energy Programs", 11),
             ("line", "Sterling, Virginia", 11)],
            _body("wind energy facility", "the lease area"),
        ], none | {
            "title": "Vineyard Wind 1 Offshore Wind Energy Project Supplement to the Draft Environmental Impact "
                     "Statement",
            "project_title": "Vineyard Wind 1 Offshore Wind Energy Project",
            "lead_agency": "Bureau of Ocean Energy Management", "document_type": "Supplemental Draft EIS",
            "process_type": "EIS", "year": "2020", "eis_number": "OCS EIS/EA BOEM 2020-025"}),

        # USDA RUS transmission line: the agency beside "Prepared by:", cooperating agencies named in a sentence
        # ("In cooperation with ...") with their sub-units, a county named Iowa in Wisconsin, and a consultant.
        Case("rus_transmission_in_cooperation_with", [
            [("line", "Hickory Ridge-Cardinal 345-kV", 22, True), ("line", "Transmission Line Project", 22, True),
             ("line", "Final Environmental Impact Statement", 16), ("gap", 20),
             ("line", "Dane, Grant, Iowa and Lafayette Counties, Wisconsin", 11), ("gap", 40),
             ("line", "Prepared by: Rural Utilities Service,", 11),
             ("line", "United States Department of Agriculture", 11), ("gap", 8),
             ("line", "In cooperation with the U.S. Fish and Wildlife Service,", 10),
             ("line", "Upper Mississippi River National Wildlife and Fish Refuge,", 10),
             ("line", "and the U.S. Army Corps of Engineers, Rock Island District", 10), ("gap", 20),
             ("line", "Prepared with assistance from Stantec Consulting Services Inc.", 9), ("gap", 30),
             ("line", "October 2019", 12)],
            _body("transmission line", "the driftless area"),
        ], none | {
            "prepared_by": "Rural Utilities Service, United States Department of Agriculture",
            "title": "Hickory Ridge-Cardinal 345-kV Transmission Line Project Final Environmental Impact Statement",
            "project_title": "Hickory Ridge-Cardinal 345-kV Transmission Line Project",
            "lead_agency": "Rural Utilities Service",
            "cooperating_agencies": ["U.S. Fish and Wildlife Service", "U.S. Army Corps of Engineers"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2019", "states": ["WI"]}),

        # DOE nuclear: an all-caps title in three lines under "FINAL", a summary volume, the number and date above
        # the title, DOE offices at the foot and the cooperating agency marked in parentheses after its name.
        Case("doe_supplemental_all_caps_summary", [
            [("line", "DOE/EIS-0283-S2", 11), ("line", "April 2015", 11), ("gap", 50),
             ("line", "FINAL", 18, True), ("line", "SURPLUS PLUTONIUM DISPOSITION", 20, True),
             ("line", "SUPPLEMENTAL ENVIRONMENTAL", 20, True), ("line", "IMPACT STATEMENT", 20, True),
             ("gap", 10), ("line", "Summary", 16), ("gap", 200),
             ("line", "United States Department of Energy", 12), ("line", "Office of Environmental Management", 11),
             ("line", "National Nuclear Security Administration", 11), ("gap", 10),
             ("line", "Tennessee Valley Authority (Cooperating Agency)", 11)],
            _body("disposition of surplus plutonium", "the sites"),
        ], none | {
            "title": "Final Surplus Plutonium Disposition Supplemental Environmental Impact Statement",
            "project_title": "Surplus Plutonium Disposition", "lead_agency": "Department of Energy",
            "cooperating_agencies": ["Tennessee Valley Authority"], "document_type": "Supplemental Final EIS",
            "process_type": "EIS", "year": "2015", "eis_number": "DOE/EIS-0283-S2"},
            props={"title": "SPD SEIS Summary", "author": "Leidos", "creationDate": "D:20150402101500-04'00'"}),

        # Air Force notice of intent as printed in the Federal Register: running head with the date, AGENCY and
        # ACTION captions, a cooperating agency named in prose, the project's state in the summary and a
        # headquarters address in another state.
        Case("air_force_noi_federal_register", [
            [("line", "Federal Register / Vol. 88, No. 9 / Friday, January 13, 2023 / Notices", 8), ("gap", 10),
             ("line", "DEPARTMENT OF DEFENSE", 10, True), ("gap", 4), ("line", "Department of the Air Force", 10, True),
             ("gap", 4), ("line", "Notice of Intent To Prepare an Environmental Impact", 10, True),
             ("line", "Statement for the Holloman Range Complex Airspace", 10, True),
             ("line", "Modernization", 10, True), ("gap", 4),
             ("line", "AGENCY: Department of the Air Force, Department of Defense.", 9),
             ("line", "ACTION: Notice of intent.", 9),
             ("body", "SUMMARY: The Department of the Air Force (DAF) intends to prepare an Environmental Impact "
                      "Statement (EIS) to evaluate the potential environmental consequences of modernizing the "
                      "special use airspace and ranges used by aircrews at Holloman Air Force Base (AFB), Otero "
                      "County, New Mexico. DATES: The DAF invites comments on the scope of the EIS; comments must "
                      "be received by February 27, 2023. Scoping meetings will be held in Alamogordo, Las Cruces "
                      "and Ruidoso. ADDRESSES: Written comments may be sent to the Air Force Civil Engineer Center, "
                      "2261 Hughes Avenue, Suite 155, Joint Base San Antonio-Lackland, TX 78236. FOR FURTHER "
                      "INFORMATION CONTACT: Public Affairs Office, 49th Wing, telephone (575) 572-7381. "
                      "SUPPLEMENTARY INFORMATION: The proposed action would establish new military operations areas "
                      "and modify existing restricted areas. The Federal Aviation Administration (FAA) will "
                      "participate as a cooperating agency because airspace changes require FAA action. The DAF "
                      "will consult with tribes and with the New Mexico State Historic Preservation Officer. "
                      "Adriane Paris, Acting Air Force Federal Register Liaison Officer. "
                      "[FR Doc. 2023-00612 Filed 1-12-23; 8:45 am] BILLING CODE 5001-10-P")],
        ], none | {
            "title": "Notice of Intent To Prepare an Environmental Impact Statement for the Holloman Range Complex "
                     "Airspace Modernization",
            "project_title": "Holloman Range Complex Airspace Modernization",
            "lead_agency": "Department of the Air Force", "cooperating_agencies": ["Federal Aviation Administration"],
            "document_type": "NOI", "process_type": "EIS", "year": "2023", "states": ["NM"]}),

        # FWS refuge FONSI: all-caps document type, the regional office in another state, the signature date as
        # M/D/YYYY at the end of the finding, and an earlier draft's year in the text.
        Case("fws_refuge_fonsi", [
            [("line", "U.S. Fish and Wildlife Service", 12, True), ("line", "Mountain-Prairie Region", 10),
             ("line", "Lakewood, Colorado", 10), ("gap", 40),
             ("line", "FINDING OF NO SIGNIFICANT IMPACT", 18, True),
             ("line", "Kirwin National Wildlife Refuge", 16), ("line", "Comprehensive Conservation Plan", 16),
             ("line", "Phillips County, Kansas", 12),
             ("body", "The U.S. Fish and Wildlife Service (Service) has prepared an environmental assessment (EA) for "
                      "the Kirwin National Wildlife Refuge Comprehensive Conservation Plan. The EA evaluated three "
                      "alternatives for managing the refuge's grasslands, wetlands and the reservoir over the next "
                      "15 years. The draft plan and EA were released for public review in 2020, and the comments "
                      "received are addressed in Appendix F. Based on the analysis in the EA, I have determined "
                      "that implementing Alternative B is not a major Federal action that would significantly "
                      "affect the quality of the human environment within the meaning of section 102(2)(C) of the "
                      "National Environmental Policy Act; an environmental impact statement is therefore not "
                      "required. The Kansas Department of Wildlife and Parks and the Bureau of Reclamation, which "
                      "owns the reservoir, were consulted. "
                      "Regional Director, Mountain-Prairie Region, Lakewood, Colorado. Date: 9/8/2021")],
        ], none | {
            "title": "Finding of No Significant Impact Kirwin National Wildlife Refuge Comprehensive Conservation Plan",
            "project_title": "Kirwin National Wildlife Refuge Comprehensive Conservation Plan",
            "lead_agency": "U.S. Fish and Wildlife Service", "document_type": "FONSI", "process_type": "EA",
            "year": "2021", "states": ["KS"]}),

        # Reclamation draft EA: no date anywhere on the document but the PDF's creation date, an all-caps agency
        # block at the foot naming a regional office in another state, a project proponent and a consultant, the
        # lead and cooperating agency on the page after the cover.
        Case("reclamation_draft_ea_agency_at_foot", [
            [("line", "Draft Environmental Assessment", 20, True), ("gap", 10),
             ("line", "Pueblo Dam North-South Outlet", 20, True), ("line", "Works Interconnect", 20, True),
             ("line", "Pueblo County, Colorado", 12), ("gap", 40),
             ("line", "Project Proponent: Board of Water Works of Pueblo", 10),
             ("line", "Prepared with assistance from ERO Resources Corporation", 10), ("gap", 260),
             ("line", "U.S. DEPARTMENT OF THE INTERIOR", 11), ("line", "BUREAU OF RECLAMATION", 14, True),
             ("line", "Missouri Basin Region", 11), ("line", "Billings, Montana", 11)],
            [("line", "Lead Agency: Bureau of Reclamation, Eastern Colorado Area Office", 10),
             ("line", "Cooperating Agency: Colorado Parks and Wildlife", 10), ("gap", 10)]
            + _body("outlet works interconnect", "the reservoir"),
        ], none | {
            "title": "Draft Environmental Assessment Pueblo Dam North-South Outlet Works Interconnect",
            "project_title": "Pueblo Dam North-South Outlet Works Interconnect", "lead_agency": "Bureau of Reclamation",
            "cooperating_agencies": ["Colorado Parks and Wildlife"], "document_type": "EA", "process_type": "EA",
            "year": "2021", "states": ["CO"]},
            props={"title": "Draft EA", "creationDate": "D:20210622093000-06'00'"}),
    ]


HELDOUT = _cases()


def write_set(folder: Path) -> Path:
    """Every held-out case as ``<name>.pdf`` in ``folder`` and ``expected.csv`` beside them; returns the CSV's path."""
    return cover_layouts.write_set(folder, HELDOUT)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.documents.cover_layouts_heldout OUT_DIR")
    print(write_set(Path(sys.argv[1])))
