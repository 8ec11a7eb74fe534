"""A second held-out metadata set: ten EIS-like covers made as PDFs, of kinds the conformance set does not cover,
written without sight of the extractor's rules. They vary the layout (a logo word above the agency, the agency
at the bottom, all-capital covers, a cover sheet on page 2), the labels ("Responsible Agencies ... (Lead Agency)",
"Lead Federal Agency:", "Joint Lead Agencies:", "Lead Agency (Responsible Entity):"), the dates ("Spring 2014",
"27 January 2012", "June 12, 2019", "DECEMBER 2019", a PDF creation date a year after the cover's) and the
distractors (consultants' and field offices' addresses in other states, phone numbers, comment deadlines,
planning case and publication numbers, a contractor's logo, a "Draft EIS" in a final volume's subtitle). Each
states the values a careful reader would write down from the document; None where the document does not say.

    python -m tests.documents.cover_layouts_heldout_b OUT_DIR   # writes the PDFs and expected.csv
"""
from __future__ import annotations

import sys
from pathlib import Path

from tests.documents import cover_layouts
from tests.documents.cover_layouts import EXPECTED_FIELDS, Case, _body


def _cases() -> list[Case]:
    none = dict.fromkeys(EXPECTED_FIELDS)
    return [
        # A logo word ("TVA") above the agency's name; a seven-state region; cooperating agencies one a line.
        Case("tva_reservoir_programmatic_logo", [
            [("line", "TVA", 30, True), ("line", "Tennessee Valley Authority", 11), ("gap", 50),
             ("line", "Reservoir Operations Study", 24, True),
             ("line", "Final Programmatic Environmental Impact Statement", 16, True), ("gap", 20),
             ("line", "Alabama, Georgia, Kentucky, Mississippi,", 12),
             ("line", "North Carolina, Tennessee and Virginia", 12), ("gap", 30),
             ("line", "Cooperating Agencies:", 10), ("line", "U.S. Army Corps of Engineers", 10),
             ("line", "U.S. Fish and Wildlife Service", 10), ("gap", 30), ("line", "February 2004", 12)],
            [("line", "For further information, contact:", 10), ("line", "Ruth Ellison, NEPA Specialist", 10),
             ("line", "Tennessee Valley Authority", 10), ("line", "400 West Summit Hill Drive", 10),
             ("line", "Knoxville, TN 37902", 10), ("line", "Phone: (865) 632-4418", 10), ("gap", 20)]
            + _body("change in reservoir operating policies", "the river system"),
        ], none | {
            "title": "Reservoir Operations Study Final Programmatic Environmental Impact Statement",
            "project_title": "Reservoir Operations Study", "lead_agency": "Tennessee Valley Authority",
            "cooperating_agencies": ["U.S. Army Corps of Engineers", "U.S. Fish and Wildlife Service"],
            "document_type": "Programmatic Final EIS", "process_type": "EIS", "year": "2004",
            "states": ["AL", "GA", "KY", "MS", "NC", "TN", "VA"]},
            props={"title": "ROS FPEIS", "author": "TVA", "creationDate": "D:20040227093000"}),

        # A fishery management plan amendment with the EIS inside it. The cover names the Council first and the
        # Service second, with both addresses (in Florida) and phone numbers; the cover sheet on page 2 marks the
        # Service "(Lead Agency)". The Council is a co-preparing "responsible agency", not a cooperating agency,
        # so cooperating_agencies is None. The action is in federal waters of the Gulf; no state is named as the
        # place of the action (Florida appears only in mailing addresses), so states is None. The title is the
        # bold display title; the "Including ..." lines list the analyses bound with it. The PDF was made in
        # January 2015, after the December 2014 cover date.
        Case("nmfs_fishery_amendment_responsible_agencies", [
            [("line", "Final Amendment 40", 22, True), ("line", "to the Fishery Management Plan for the", 16, True),
             ("line", "Reef Fish Resources of the Gulf of Mexico", 16, True), ("gap", 10),
             ("line", "Recreational Red Snapper Sector Separation", 16, True), ("gap", 20),
             ("line", "Including Final Environmental Impact Statement,", 12),
             ("line", "Regulatory Impact Review, and Regulatory Flexibility Act Analysis", 12), ("gap", 40),
             ("line", "December 2014", 12), ("gap", 40),
             ("line", "Gulf of Mexico Fishery Management Council", 10),
             ("line", "2203 North Lois Avenue, Suite 1100", 10), ("line", "Tampa, Florida 33607", 10),
             ("line", "813.348.1630   813.348.1711 (fax)", 10), ("gap", 8),
             ("line", "National Marine Fisheries Service", 10), ("line", "Southeast Regional Office", 10),
             ("line", "263 13th Avenue South", 10), ("line", "St. Petersburg, Florida 33701", 10),
             ("line", "727.824.5305   727.824.5308 (fax)", 10), ("gap", 20),
             ("line", "This is a publication of the Gulf of Mexico Fishery Management Council pursuant to", 8),
             ("line", "National Oceanic and Atmospheric Administration Award No. NA10NMF4410011.", 8)],
            [("line", "ENVIRONMENTAL IMPACT STATEMENT COVER SHEET", 12, True), ("gap", 10),
             ("line", "Responsible Agencies and Contact Persons", 10, True),
             ("line", "Gulf of Mexico Fishery Management Council (Council)", 10),
             ("line", "National Marine Fisheries Service (Lead Agency)", 10), ("gap", 10),
             ("line", "Type of Action", 10, True), ("line", "(  ) Administrative     (  ) Legislative", 10),
             ("line", "(  ) Draft     (X) Final", 10), ("gap", 10)]
            + _body("sector separation", "the recreational fishery"),
        ], none | {
            "title": "Final Amendment 40 to the Fishery Management Plan for the Reef Fish Resources of the Gulf of "
                     "Mexico Recreational Red Snapper Sector Separation",
            "project_title": "Amendment 40 to the Fishery Management Plan for the Reef Fish Resources of the Gulf "
                             "of Mexico Recreational Red Snapper Sector Separation",
            "lead_agency": "National Marine Fisheries Service", "document_type": "Final EIS",
            "process_type": "EIS", "year": "2014"},
            props={"author": "Gulf Council", "creationDate": "D:20150106141500"}),

        # An Army stationing EIS: a military-style date, the preparing command's address in Texas and a
        # consultant's in Virginia; a word-processor file name as the PDF's title.
        Case("army_stationing_draft_consultant", [
            [("line", "Department of the Army", 14, True), ("line", "Headquarters, Fort Carson, Colorado", 11),
             ("gap", 50), ("line", "Draft Environmental Impact Statement", 20, True),
             ("line", "for the Combat Aviation Brigade", 18, True), ("line", "Stationing at Fort Carson", 18, True),
             ("gap", 20), ("line", "El Paso, Pueblo, Fremont and Las Animas Counties, Colorado", 12),
             ("gap", 40), ("line", "Prepared by:", 10), ("line", "U.S. Army Environmental Command", 10),
             ("line", "2450 Connell Road, Fort Sam Houston, TX 78234", 10), ("gap", 10),
             ("line", "With technical assistance from:", 9), ("line", "Summit Environmental Consulting, LLC", 9),
             ("line", "3190 Fairview Park Drive, Fairfax, Virginia 22042", 9), ("gap", 30),
             ("line", "27 January 2012", 12),
             ("line", "Comments on this Draft EIS are due by 12 March 2012.", 10)],
            _body("stationing of an aviation brigade", "the installation"),
        ], none | {
            "prepared_by": "U.S. Army Environmental Command",
            "title": "Draft Environmental Impact Statement for the Combat Aviation Brigade Stationing at Fort Carson",
            "project_title": "Combat Aviation Brigade Stationing at Fort Carson",
            "lead_agency": "Department of the Army", "document_type": "Draft EIS", "process_type": "EIS",
            "year": "2012", "states": ["CO"]},
            props={"title": "Microsoft Word - CAB DEIS_v3_final.docx", "author": "Summit Environmental"}),

        # A Marine Corps relocation in the territories, Navy as lead: an all-capital agency line, "Final" on its own
        # line above "Supplemental Environmental Impact Statement", a five-agency cooperating list over three
        # lines, and a Hawaii address for the program office on page 2. Guam and the Northern Mariana Islands
        # have USPS codes GU and MP.
        Case("navy_guam_supplemental_final_territories", [
            [("line", "DEPARTMENT OF THE NAVY", 14, True), ("line", "Naval Facilities Engineering Command, Pacific", 10),
             ("gap", 40), ("line", "Final", 22, True),
             ("line", "Supplemental Environmental Impact Statement", 18, True), ("gap", 10),
             ("line", "Guam and Commonwealth of the", 16, True),
             ("line", "Northern Mariana Islands Military Relocation", 16, True),
             ("line", "(2012 Roadmap Adjustments)", 16, True), ("gap", 20),
             ("line", "Volume 1: Chapters 1 through 6", 12), ("gap", 20),
             ("line", "Lead Agency: Department of the Navy", 10),
             ("line", "Cooperating Agencies: Federal Highway Administration;", 10),
             ("line", "U.S. Environmental Protection Agency; U.S. Fish and Wildlife Service;", 10),
             ("line", "National Marine Fisheries Service; U.S. Army Corps of Engineers", 10),
             ("gap", 30), ("line", "July 2015", 12)],
            [("line", "For further information, contact:", 10),
             ("line", "Executive Director, Joint Guam Program Office Forward", 10),
             ("line", "Naval Facilities Engineering Command, Pacific", 10),
             ("line", "258 Makalapa Drive, Suite 100", 10),
             ("line", "Joint Base Pearl Harbor-Hickam, Hawaii 96860-3134", 10), ("gap", 20)]
            + _body("relocation of Marine Corps forces", "the islands"),
        ], none | {
            "title": "Final Supplemental Environmental Impact Statement Guam and Commonwealth of the Northern "
                     "Mariana Islands Military Relocation (2012 Roadmap Adjustments)",
            "project_title": "Guam and Commonwealth of the Northern Mariana Islands Military Relocation "
                             "(2012 Roadmap Adjustments)",
            "lead_agency": "Department of the Navy",
            "cooperating_agencies": ["Federal Highway Administration", "Environmental Protection Agency",
                                     "U.S. Fish and Wildlife Service", "National Marine Fisheries Service",
                                     "U.S. Army Corps of Engineers"],
            "document_type": "Supplemental Final EIS", "process_type": "EIS", "year": "2015",
            "states": ["GU", "MP"], "volume_title": "Volume 1: Chapters 1 through 6"},
            props={"title": "Guam CNMI Relocation FSEIS Vol 1"}),

        # A NASA launch-site EA: a logo word ("NASA") above the agency's name, a full date, sub-office names on
        # the cooperating lines ("U.S. Air Force, 45th Space Wing" is the Department of the Air Force), and the
        # consultant's Florida address (same state as the action).
        Case("nasa_launch_complex_ea", [
            [("line", "NASA", 32, True), ("line", "National Aeronautics and Space Administration", 10),
             ("line", "John F. Kennedy Space Center", 12), ("gap", 50),
             ("line", "Final Environmental Assessment", 20, True),
             ("line", "for Multi-User Launch Complex 48", 20, True), ("line", "Brevard County, Florida", 12),
             ("gap", 30), ("line", "Cooperating Agencies:", 10),
             ("line", "Federal Aviation Administration, Office of Commercial Space Transportation", 9),
             ("line", "U.S. Air Force, 45th Space Wing", 9), ("gap", 30), ("line", "June 12, 2019", 12),
             ("gap", 40), ("line", "Prepared for NASA by:", 8),
             ("line", "Coastal Range Environmental, LLC, 1200 Banana River Drive, Cocoa Beach, Florida", 8)],
            [("body", "Abstract. This Environmental Assessment evaluates the construction and operation of a "
                      "launch complex for small-class launch vehicles, and it tiers from the 2014 Final "
                      "Environmental Impact Statement for the center's master plan. " * 4)],
            _body("launch complex", "the coastal scrub"),
        ], none | {
            "prepared_by": "Coastal Range Environmental, LLC",
            "title": "Final Environmental Assessment for Multi-User Launch Complex 48",
            "project_title": "Multi-User Launch Complex 48",
            "lead_agency": "National Aeronautics and Space Administration",
            "cooperating_agencies": ["Federal Aviation Administration", "Department of the Air Force"],
            "document_type": "EA", "process_type": "EA", "year": "2019", "states": ["FL"]},
            props={"subject": "Environmental Assessment", "keywords": "NEPA; KSC; launch complex",
                   "creationDate": "D:20190610100000"}),

        # A HUD-funded housing EIS where the city, as Responsible Entity under 24 CFR Part 58, is the lead agency
        # (it assumes HUD's NEPA responsibilities); the agency block is at the bottom; a planning case number
        # (not an EIS number) and a comment deadline sit beside the publication date.
        Case("hud_city_responsible_entity_bottom", [
            [("gap", 30), ("line", "Sunnydale HOPE SF Master Plan", 22, True),
             ("line", "Draft Environmental Impact Statement", 18, True), ("gap", 20),
             ("line", "San Francisco, California", 12), ("line", "Planning Department Case No. 2010.0305E", 11),
             ("gap", 30), ("line", "Date of Publication: March 28, 2016", 11),
             ("line", "Written comments due: May 12, 2016", 11), ("gap", 60),
             ("line", "Lead Agency (Responsible Entity):", 10, True),
             ("line", "City and County of San Francisco", 12),
             ("line", "Mayor's Office of Housing and Community Development", 10),
             ("line", "One South Van Ness Avenue, Fifth Floor, San Francisco, CA 94103", 9), ("gap", 10),
             ("line", "Acting under the authority of the U.S. Department of Housing and Urban Development", 9),
             ("line", "pursuant to 24 CFR Part 58", 9)],
            _body("redevelopment of public housing", "the neighborhood"),
        ], none | {
            "title": "Sunnydale HOPE SF Master Plan Draft Environmental Impact Statement",
            "project_title": "Sunnydale HOPE SF Master Plan", "lead_agency": "City and County of San Francisco",
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2016", "states": ["CA"]},
            props={"creationDate": "D:20160325160000"}),

        # A light-rail Final EIS, volume 3: a joint lead (the first-named, the Federal Transit Administration,
        # is lead_agency; the Metropolitan Council is the other joint lead, not a cooperating agency), a
        # district after the cooperating agency's name, and a volume subtitle naming the Draft and
        # Supplemental Draft EIS whose comments it answers; the document is the Final EIS.
        Case("fta_light_rail_volume3_joint_lead", [
            [("line", "U.S. Department of Transportation", 10), ("line", "Federal Transit Administration", 12),
             ("line", "Metropolitan Council", 12), ("gap", 40),
             ("line", "Southwest Light Rail Transit Project", 22, True),
             ("line", "Final Environmental Impact Statement", 18, True),
             ("line", "and Final Section 4(f) Evaluation", 16, True), ("gap", 10),
             ("line", "Volume 3: Responses to Comments on the Draft EIS", 13),
             ("line", "and the Supplemental Draft EIS", 13), ("gap", 20),
             ("line", "Hennepin County, Minnesota", 12), ("gap", 20),
             ("line", "Joint Lead Agencies: Federal Transit Administration and Metropolitan Council", 9),
             ("line", "Cooperating Agency: U.S. Army Corps of Engineers, St. Paul District", 9),
             ("gap", 30), ("line", "May 2016", 12)],
            [("body", "Response to Comment 1042-3. The Supplemental Draft EIS published in May 2015 evaluated the "
                      "design adjustments near the Kenilworth Corridor; the Minnesota Department of "
                      "Transportation and the Minneapolis Park and Recreation Board commented on the crossing. "
                      "Response to Comment 1043-1. The Draft EIS of October 2012 disclosed the noise effects. " * 3)],
            _body("light rail line", "the corridor"),
        ], none | {
            "title": "Southwest Light Rail Transit Project Final Environmental Impact Statement and Final "
                     "Section 4(f) Evaluation",
            "project_title": "Southwest Light Rail Transit Project", "lead_agency": "Federal Transit Administration",
            "cooperating_agencies": ["U.S. Army Corps of Engineers"], "document_type": "Final EIS",
            "process_type": "EIS", "year": "2016", "states": ["MN"],
            "volume_title": "Volume 3: Responses to Comments on the Draft EIS and the Supplemental Draft EIS"},
            props={"title": "SWLRT FEIS Volume 3"}),

        # A BLM "Proposed RMP Amendments and Final EIS" (the final-EIS stage of a plan amendment). Two numbers:
        # the DOI-BLM NEPA register number ending in -EIS is the document's EIS number; BLM/UT/PL-16/003 is a
        # publication number. The cooperating list mixes a federal bureau with state and county bodies.
        Case("blm_proposed_rmp_amendment_final", [
            [("line", "U.S. Department of the Interior", 10), ("line", "Bureau of Land Management", 13, True),
             ("line", "Canyon Country District, Moab and Monticello Field Offices", 10), ("gap", 40),
             ("line", "Moab Master Leasing Plan", 24, True),
             ("line", "Proposed Resource Management Plan Amendments", 16, True),
             ("line", "and Final Environmental Impact Statement", 16, True), ("gap", 20),
             ("line", "Grand and San Juan Counties, Utah", 12), ("gap", 20),
             ("line", "DOI-BLM-UT-Y010-2012-0108-EIS", 10), ("line", "BLM/UT/PL-16/003", 10), ("gap", 20),
             ("line", "Cooperating Agencies:", 10),
             ("line", "National Park Service; Utah Public Lands Policy Coordinating Office;", 9),
             ("line", "Grand County; San Juan County", 9), ("gap", 30), ("line", "June 2016", 12)],
            _body("leasing plan", "the canyon country"),
        ], none | {
            "title": "Moab Master Leasing Plan Proposed Resource Management Plan Amendments and Final "
                     "Environmental Impact Statement",
            "project_title": "Moab Master Leasing Plan", "lead_agency": "Bureau of Land Management",
            "cooperating_agencies": ["National Park Service", "Utah Public Lands Policy Coordinating Office",
                                     "Grand County", "San Juan County"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2016", "states": ["UT"],
            "eis_number": "DOI-BLM-UT-Y010-2012-0108-EIS"}),

        # A USDA APHIS programmatic draft: the only date on the cover is a season ("Spring 2014"); the lead is
        # labelled "Lead Federal Agency:" with a "USDA" prefix; the program is national and no state is named as
        # its place (Maryland and the District of Columbia appear only in addresses), so states is None.
        Case("aphis_programmatic_draft_spring", [
            [("line", "USDA", 28, True), ("line", "United States Department of Agriculture", 9),
             ("line", "Animal and Plant Health Inspection Service", 12), ("line", "Plant Protection and Quarantine", 10),
             ("gap", 60), ("line", "Asian Longhorned Beetle", 22, True), ("line", "Eradication Program", 22, True),
             ("line", "Draft Programmatic Environmental Impact Statement", 15, True), ("gap", 30),
             ("line", "Lead Federal Agency: USDA Animal and Plant Health Inspection Service", 10), ("gap", 30),
             ("line", "Spring 2014", 14)],
            [("line", "Agency Contact:", 10),
             ("line", "Program Manager, Asian Longhorned Beetle Eradication Program", 10),
             ("line", "Plant Protection and Quarantine", 10), ("line", "4700 River Road, Unit 134", 10),
             ("line", "Riverdale, MD 20737-1236", 10), ("gap", 20),
             ("body", "The U.S. Department of Agriculture (USDA) prohibits discrimination in all its programs and "
                      "activities on the basis of race, color, national origin, sex, religion, age, disability, "
                      "political beliefs, sexual orientation, or marital or family status. To file a complaint, "
                      "write to USDA, Director, Office of Civil Rights, 1400 Independence Avenue, SW, Washington, "
                      "DC 20250-9410, or call (800) 795-3272 (voice) or (202) 720-6382 (TDD). USDA is an equal "
                      "opportunity provider and employer. Mention of companies or commercial products in this "
                      "report does not imply recommendation or endorsement by USDA over others not mentioned.")],
            _body("eradication program", "the infested areas"),
        ], none | {
            "title": "Asian Longhorned Beetle Eradication Program Draft Programmatic Environmental Impact Statement",
            "project_title": "Asian Longhorned Beetle Eradication Program",
            "lead_agency": "Animal and Plant Health Inspection Service", "document_type": "Programmatic Draft EIS",
            "process_type": "EIS", "year": "2014"},
            props={"creationDate": "D:20140418110000"}),

        # A CBP border-infrastructure EA in capitals ("FINAL / ENVIRONMENTAL ASSESSMENT", "DECEMBER 2019"; the
        # title is written here in title case, the words as printed), with a contractor's logo word and its
        # Louisiana address at the foot of the cover.
        Case("cbp_border_ea_caps_contractor", [
            [("line", "U.S. Department of Homeland Security", 11),
             ("line", "U.S. Customs and Border Protection", 13, True), ("line", "U.S. Border Patrol", 11),
             ("gap", 40), ("line", "FINAL", 22, True), ("line", "ENVIRONMENTAL ASSESSMENT", 22, True),
             ("line", "for Tactical Infrastructure Construction", 16, True),
             ("line", "Rio Grande Valley Sector", 16, True), ("gap", 20),
             ("line", "Starr and Hidalgo Counties, Texas", 12), ("gap", 20),
             ("line", "Lead Agency: U.S. Customs and Border Protection", 10),
             ("line", "Cooperating Agency: U.S. Fish and Wildlife Service", 10),
             ("line", "(Lower Rio Grande Valley National Wildlife Refuge)", 10), ("gap", 30),
             ("line", "DECEMBER 2019", 12), ("gap", 40), ("line", "GCER", 18, True),
             ("line", "Gulf Coast Environmental Research, Inc.", 9),
             ("line", "8081 Innovation Park Drive, Baton Rouge, Louisiana 70820", 9)],
            _body("border wall and patrol road", "the river valley"),
        ], none | {
            "title": "Final Environmental Assessment for Tactical Infrastructure Construction Rio Grande Valley "
                     "Sector",
            "project_title": "Tactical Infrastructure Construction Rio Grande Valley Sector",
            "lead_agency": "U.S. Customs and Border Protection",
            "cooperating_agencies": ["U.S. Fish and Wildlife Service"], "document_type": "EA",
            "process_type": "EA", "year": "2019", "states": ["TX"]},
            props={"author": "GCER", "title": "RGV TI Final EA"}),
    ]


HELDOUT_B = _cases()


def write_set(folder: Path) -> Path:
    """Every held-out case as ``<name>.pdf`` in ``folder`` and ``expected.csv`` beside them; returns the CSV's path."""
    return cover_layouts.write_set(folder, HELDOUT_B)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.documents.cover_layouts_heldout_b OUT_DIR")
    print(write_set(Path(sys.argv[1])))
