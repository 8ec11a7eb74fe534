"""A held-out set for the states read from the body: sixteen EIS-like documents made as PDFs, written without sight
of the extractor's rules, whose covers name no U.S. state, no territory and no state abbreviation, so that where
the project lies can only be learnt from the front matter and body text on pages 2-4 (an abstract or cover sheet,
an executive summary, an introduction, purpose and need, a project-location section).

Ten documents say where the project lies, each in its own words: a planning area's acreage in a part of a state,
miles from a town in named counties, a line running from a town in one state across two others to a town in a
fourth, a site on one bank of a border river, a statement first made on page 4, a territory named in a cover sheet's
"Affected Jurisdiction", a city followed by a state abbreviation, "Figure 1-1 shows the project site in ... County",
a "1.2 Project Location" section, and "The project area lies in ten counties of X and six counties of Y". Each also
names other states in other roles (neighbouring forests, origins and destinations, offices and addresses, distances
to a state line, comparisons, state laws, a species named for a state, a county named for a river), so that taking
every state named is wrong there.

Six documents never say where the action lies, because it has no one place (a fleet-wide decision with basing
deferred, programmatic loan guarantees, a national ballast-water standard, a permit rule wherever eagles occur,
nationwide grant programs, a national tank-car rule); their states are None although they name many states: in
comment addresses and contractors' offices, state agencies as cooperating agencies, comparisons with projects
elsewhere, a species' range and tribes' reservations, examples of past projects, markets and destinations, accident
sites and state laws.

Each case states the values a careful reader would write down from the document; None where it does not say.
``states`` is the sorted list of USPS codes of the states or territories where the project lies, as the first pages
state it.

    python -m tests.documents.body_states_heldout OUT_DIR   # writes the PDFs and expected.csv
"""
from __future__ import annotations

import sys
from pathlib import Path

from tests.documents import cover_layouts
from tests.documents.cover_layouts import EXPECTED_FIELDS, Case


def _page(heading: str, text: str, size: int = 13, before: list[tuple] | None = None) -> list[tuple]:
    """One body page: optional lines, a bold heading, then one 10-point paragraph filling the rest of the page."""
    return [*(before or []), ("line", heading, size, True), ("body", text)]


def _cases() -> list[Case]:
    none = dict.fromkeys(EXPECTED_FIELDS)
    return [
        # POSITIVE. A forest plan revision: "The Planning Area encompasses approximately 1.2 million acres ... in
        # northwestern Montana" (a part of a state, with acreage) on page 3. Traps: the neighbouring "Idaho
        # Panhandle National Forests" on the west boundary and grizzly bears ranging into "the Selkirk Mountains of
        # northern Idaho"; neither puts the plan in Idaho, so states is MT alone.
        Case("fs_plan_revision_planning_area_acres", [
            [("line", "United States Department of Agriculture", 10), ("line", "Forest Service", 16, True),
             ("gap", 60), ("line", "Kootenai Highlands", 26, True), ("line", "Land Management Plan Revision", 20, True),
             ("gap", 16), ("line", "Draft Environmental Impact Statement", 16), ("gap", 60),
             ("line", "Responsible Official: Regional Forester, Northern Region", 10), ("gap", 20),
             ("line", "January 2022", 12)],
            _page("Abstract", (
                "The Forest Service has prepared this draft environmental impact statement to disclose the "
                "environmental consequences of revising the 1987 land management plan for the Kootenai Highlands. "
                "Once approved, the revised plan would guide project and activity decisions for roughly the next 15 "
                "years by setting desired conditions, objectives, standards and guidelines, by identifying lands "
                "suitable for timber production and livestock grazing, and by recommending areas for wilderness "
                "designation. Four alternatives are analyzed in detail. Alternative A, the no-action alternative, "
                "would continue management under the 1987 plan as amended, including the 2011 amendment for "
                "motorized access in grizzly bear habitat. Alternative B, the preferred alternative, emphasizes "
                "restoring fire-adapted dry forests while keeping the connected habitat that grizzly bears and Canada "
                "lynx need. Alternative C would recommend about 290,000 acres for wilderness and reduce the timber "
                "base, and Alternative D would increase the projected timber sale quantity and open more areas to "
                "motorized winter recreation. The draft plan and this draft EIS are available for a 90-day comment "
                "period beginning on the date the notice of availability is published in the Federal Register. The "
                "responsible official for the plan is the Regional Forester, Northern Region."), 14),
            _page("1.1 The Planning Area", (
                "The Planning Area encompasses approximately 1.2 million acres of National Forest System lands in "
                "northwestern Montana. It is bounded on the north by the international border with Canada and on the "
                "west by the Idaho Panhandle National Forests, and it extends south and east to the Cabinet Mountains "
                "Wilderness and the divide above the Fisher River. Elevations range from about 1,800 feet where the "
                "Kootenai River leaves the forest to more than 8,700 feet on Snowshoe Peak. Nearly all of the Planning "
                "Area lies in Lincoln and Sanders Counties, and the communities of Libby, Troy and Eureka have long "
                "depended on it for timber, water, hunting and recreation. About 44 percent of the land base is "
                "inventoried roadless area. Because grizzly bears of the Cabinet-Yaak recovery zone range back and "
                "forth between the Planning Area and the Selkirk Mountains of northern Idaho and southern British "
                "Columbia, decisions about road density and security habitat made here affect a population that "
                "crosses state and international lines. The same is true of the bull trout that spawn in tributaries "
                "of Lake Koocanusa. Lands of other ownerships inside the forest boundary, mostly industrial timberland "
                "and small private parcels, are not subject to the plan, although the cumulative effects analysis in "
                "Chapter 3 considers them.")),
            _page("1.2 Need for Change", (
                "The 1987 plan no longer reflects current science, changed conditions or the 2012 Planning Rule. Since "
                "the plan was approved, large fires in 1994, 2000, 2015 and 2017 burned more than 230,000 acres, white "
                "pine blister rust and mountain pine beetle have killed much of the mature whitebark pine, and the "
                "habitat requirements for Canada lynx and grizzly bear have been refined in amendments that are "
                "difficult to apply consistently. Monitoring reports from 2012 through 2019 showed that the plan's "
                "objectives for vegetation treatment were met in only three years, largely because of litigation and "
                "declining budgets. Public comments received during the assessment phase also asked the Forest "
                "Service to update recreation direction, which does not address mountain biking, snow bikes or the "
                "growth of dispersed camping along the reservoir. Four needs for change were identified: restore the "
                "composition and structure of forest vegetation toward the natural range of variation; provide "
                "security habitat for grizzly bears consistent with the conservation strategy for the recovery zone; "
                "manage recreation settings for a growing and changing demand; and support local economies with a "
                "predictable flow of timber and other forest products. Other revisions completed in the Northern "
                "Region, including those for the Flathead and Helena-Lewis and Clark National Forests, informed the "
                "approach taken here.")),
        ], none | {
            "title": "Kootenai Highlands Land Management Plan Revision Draft Environmental Impact Statement",
            "project_title": "Kootenai Highlands Land Management Plan Revision", "lead_agency": "Forest Service",
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2022", "states": ["MT"]}),

        # POSITIVE. A gold mine "about 28 miles north of the town of Carlin, within Elko and Eureka Counties,
        # Nevada" (miles from a town, two counties) in the executive summary. Traps: liners "like those permitted
        # at recent operations in Arizona and Montana", dore "trucked to a commercial refinery in Utah" (a
        # destination), air modeling by an office "in Denver, Colorado", commenters from California and Idaho.
        # Only NV is where the project lies.
        Case("blm_mine_miles_from_town", [
            [("line", "U.S. Department of the Interior", 11), ("line", "Bureau of Land Management", 14, True),
             ("gap", 50), ("line", "Bootstrap Ridge Mine Project", 24, True),
             ("line", "Draft Environmental Impact Statement", 18, True), ("gap", 40),
             ("line", "Cooperating Agency: U.S. Fish and Wildlife Service", 10), ("gap", 30),
             ("line", "April 2019", 12)],
            _page("Executive Summary", (
                "ES.1 Introduction. Ridgeline Gold US Inc. (Ridgeline) has submitted a plan of operations to the "
                "Bureau of Land Management (BLM), Elko District, Tuscarora Field Office, to develop an open-pit gold "
                "mine with heap-leach processing. The Bootstrap Ridge Mine would be developed about 28 miles north of "
                "the town of Carlin, within Elko and Eureka Counties, Nevada, on 4,310 acres of public land and 260 "
                "acres of private land controlled by Ridgeline. Mining would continue for about 11 years and would be "
                "followed by five years of residual leaching and at least ten years of reclamation and closure. "
                "ES.2 Proposed Action. Ridgeline would mine three pits to depths of up to 1,100 feet, place about 310 "
                "million tons of waste rock in two facilities, and crush and stack about 85 million tons of ore on a "
                "lined heap-leach pad. The pad and process ponds would be lined and monitored in the same way as "
                "those permitted at recent operations in Arizona and Montana. Gold would be recovered in a carbon "
                "adsorption plant and poured as dore bars, which would be trucked to a commercial refinery in Utah. "
                "Pit dewatering would pump up to 9,000 gallons per minute at the peak of mining. ES.3 Issues. The "
                "principal issues raised in scoping were drawdown of groundwater and its effect on springs, seeps and "
                "the Maggie Creek watershed; loss and fragmentation of greater sage-grouse habitat; effects on "
                "pronghorn and mule deer migration; air emissions, including mercury; and effects on places of "
                "traditional importance to the Western Shoshone."), 14),
            _page("Chapter 1 - Purpose and Need", (
                "1.1 Purpose of and Need for the Federal Action. The BLM's purpose is to respond to Ridgeline's "
                "proposed plan of operations under the surface management regulations at 43 CFR 3809 and to take any "
                "action necessary to prevent unnecessary or undue degradation of the public lands. The need for the "
                "action arises from the BLM's responsibility under the Federal Land Policy and Management Act and the "
                "Mining Law of 1872 to allow the development of locatable minerals on public land. The BLM cannot "
                "deny a plan of operations that meets the performance standards of the regulations, but it can "
                "require mitigation, monitoring and a financial guarantee sufficient to reclaim the site. 1.2 "
                "Decision to Be Made. The District Manager will decide whether to approve the plan as proposed, "
                "approve it with modifications, or disapprove it, and will set the amount of the reclamation bond. "
                "1.3 Relationship to Other Plans. The project conforms to the 1987 resource management plan as "
                "amended in 2015 for greater sage-grouse. Air quality modeling for the analysis was completed by the "
                "BLM National Operations Center in Denver, Colorado, and the groundwater model was reviewed by a "
                "third-party hydrologist retained by the BLM.")),
            _page("Scoping and Public Involvement", (
                "The BLM published a notice of intent in the Federal Register on March 9, 2017, opening a 30-day "
                "scoping period. Public meetings were held in Elko and Carlin, and 214 letters, emails and comment "
                "forms were received. Most commenters lived in nearby communities, but comments also came from "
                "hunters in California and Idaho who use the area each fall, from the operators of two ranches whose "
                "grazing allotments include the project area, and from conservation groups. The BLM consulted with "
                "the Te-Moak Tribe of Western Shoshone and its Elko, South Fork and Battle Mountain Bands, and with "
                "the Shoshone-Paiute Tribes of the Duck Valley Reservation. Comments were grouped into issues used to "
                "develop alternatives and to focus the impact analysis. Issues that were raised but not analyzed in "
                "detail, such as the price of gold and the company's financial condition, are listed in Appendix B "
                "with the reason for their dismissal."), 12),
        ], none | {
            "title": "Bootstrap Ridge Mine Project Draft Environmental Impact Statement",
            "project_title": "Bootstrap Ridge Mine Project", "lead_agency": "Bureau of Land Management",
            "cooperating_agencies": ["U.S. Fish and Wildlife Service"], "document_type": "Draft EIS",
            "process_type": "EIS", "year": "2019", "states": ["NV"]}),

        # POSITIVE. A multi-state transmission line "from a converter station near Sinclair, Wyoming, southwest
        # through northwestern Colorado and central Utah to a converter station near Boulder City, Nevada" (end
        # points in two states, two crossed). The agency block sits at the foot of the cover. Traps: power
        # reaching "load centers in California and Arizona" (markets), the cooperating agency's office "in
        # Phoenix, Arizona", and "California's Clean Energy and Pollution Reduction Act" (a state law).
        Case("blm_transmission_line_four_states", [
            [("gap", 30), ("line", "High Plains Intertie", 26, True), ("line", "500-kV Transmission Project", 20, True),
             ("gap", 10), ("line", "Final Environmental Impact Statement", 16, True), ("gap", 80),
             ("line", "Lead Agency: Bureau of Land Management", 11),
             ("line", "Cooperating Agencies: Western Area Power Administration; U.S. Forest Service;", 10),
             ("line", "National Park Service; Bureau of Reclamation", 10), ("gap", 40), ("line", "May 2016", 12)],
            _page("Abstract", (
                "This final environmental impact statement analyzes the right-of-way application that High Plains "
                "Power Company (the Applicant) filed with the Bureau of Land Management (BLM) for a high-voltage "
                "transmission line and its terminals, and the land use plan amendments that granting the right-of-way "
                "would require. The High Plains Intertie would be a 500-kilovolt direct-current line extending "
                "approximately 730 miles from a converter station near Sinclair, Wyoming, southwest through "
                "northwestern Colorado and central Utah to a converter station near Boulder City, Nevada. It would "
                "carry up to 3,000 megawatts of electricity, most of it generated by wind farms in the Great Divide "
                "Basin, to the Marketplace Hub, where it would reach load centers in California and Arizona through "
                "existing lines. About 62 percent of the route crosses federal land, managed by 11 BLM field "
                "offices, two national forests and the Bureau of Reclamation. The BLM's agency preferred alternative "
                "follows the route described in Chapter 2 as Alternative I-D, which avoids the viewshed of Dinosaur "
                "National Monument and the sage-grouse core areas identified by the cooperating agencies. Western "
                "Area Power Administration, a cooperating agency, would decide whether to participate in the project "
                "as a joint owner.")),
            _page("1.1 Introduction", (
                "The Applicant first applied for a right-of-way in 2007 and revised its application in 2011 and 2013 "
                "as the design and the route were refined. The transmission system would consist of the line itself, "
                "two alternating current-direct current converter stations, a ground electrode facility at each end, "
                "and access roads, fiber optic regeneration stations and temporary construction yards. Right-of-way "
                "widths would be 250 feet for the line and up to 300 feet for the ground electrode lines. The BLM is "
                "the lead federal agency because most of the federal land crossed is public land that it administers. "
                "Western Area Power Administration's Desert Southwest Region in Phoenix, Arizona, has participated as "
                "a cooperating agency since scoping because Western may acquire up to half of the line's capacity "
                "under its borrowing authority. The Forest Service must decide whether to issue special use "
                "authorizations for the segments across the Ashley and Manti-La Sal National Forests, and the Bureau "
                "of Reclamation must decide on crossings of its lands and facilities near Lake Mead. The National Park "
                "Service participated because the alternatives pass near Dinosaur National Monument and the Lake Mead "
                "National Recreation Area."), 14),
            _page("1.3 Purpose and Need", (
                "The BLM's purpose is to respond to the Applicant's application under Title V of the Federal Land "
                "Policy and Management Act and to manage the public lands for multiple use while avoiding or "
                "minimizing adverse effects. The Applicant's objective is to provide a transmission path with the "
                "capacity to move large amounts of wind-generated electricity from the interior West to the desert "
                "Southwest, where it could be delivered to utilities subject to renewable portfolio standards such as "
                "California's Clean Energy and Pollution Reduction Act of 2015 and the standards adopted by the "
                "Arizona Corporation Commission. Existing lines between the two regions are fully subscribed during "
                "peak periods, and several studies by the Western Electricity Coordinating Council have identified the "
                "need for additional capacity. The BLM does not determine whether the line is needed; it considers "
                "the Applicant's interests in deciding whether to grant the right-of-way and on what terms. "
                "Western's purpose is to decide whether to participate in the project consistent with its authority "
                "under the American Recovery and Reinvestment Act.")),
        ], none | {
            "title": "High Plains Intertie 500-kV Transmission Project Final Environmental Impact Statement",
            "project_title": "High Plains Intertie 500-kV Transmission Project",
            "lead_agency": "Bureau of Land Management",
            "cooperating_agencies": ["Western Area Power Administration", "Forest Service", "National Park Service",
                                     "Bureau of Reclamation"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2016", "states": ["CO", "NV", "UT", "WY"]}),

        # POSITIVE. A river port on one bank of a border river: "on the west bank of the Mississippi River ...
        # in Mississippi County, Arkansas. The river here forms the boundary between Arkansas and Tennessee ...
        # no work is proposed in Tennessee." Traps: the opposite bank in Tennessee, the word Mississippi as a
        # river, a county and a port authority's name, customers in Louisiana, a model port in Oklahoma. States
        # is AR alone.
        Case("usace_riverport_one_bank_of_border_river", [
            [("line", "US Army Corps of Engineers", 15, True), ("line", "Memphis District", 11), ("gap", 60),
             ("line", "Draft Environmental Impact Statement", 18, True), ("line", "Osceola Riverport and", 20, True),
             ("line", "Industrial Park Development", 20, True), ("gap", 30),
             ("line", "Department of the Army Permit Application MVM-2020-00417", 10), ("gap", 30),
             ("line", "October 2021", 12)],
            _page("Summary", (
                "The Mississippi County Port Authority (the applicant) has applied to the U.S. Army Corps of "
                "Engineers, Memphis District, for a Department of the Army permit under Section 10 of the Rivers and "
                "Harbors Act of 1899 and Section 404 of the Clean Water Act. The permit would authorize the "
                "construction of a barge terminal with a 1,200-foot sheet-pile dock, a harbor channel dredged to 12 "
                "feet, and the fill of about 112 acres of forested wetlands for an adjoining 900-acre industrial park "
                "intended for a steel minimill and related manufacturers. The Corps determined that the work may "
                "significantly affect the quality of the human environment and published a notice of intent to "
                "prepare an EIS in March 2020. This draft EIS evaluates the applicant's proposal, two alternative "
                "dock locations, a smaller park that avoids the bottomland hardwood forest, and the no-action "
                "alternative. Resources of concern include wetlands and bottomland hardwoods, the pallid sturgeon, "
                "flood heights during major floods, archaeological sites of the Mississippian period, traffic on the "
                "local highway, and environmental justice in nearby communities. The Corps has not identified a "
                "preferred alternative and will do so in the final EIS after considering public comments."), 14),
            _page("Description of the Project Site", (
                "The 1,450-acre site lies on the west bank of the Mississippi River near river mile 783 above Head of "
                "Passes, about four miles east of the city of Osceola, in Mississippi County, Arkansas. The river here "
                "forms the boundary between Arkansas and Tennessee. The Tennessee bank opposite the site is a low, "
                "largely wooded floodplain in Lauderdale County that includes part of a national wildlife refuge. All "
                "proposed work, including the dock, the harbor channel and the industrial park, would be on the "
                "Arkansas side of the river; no work is proposed in Tennessee, although effects on the opposite bank, "
                "such as changes in current velocity and bank erosion, are analyzed in Chapter 4. Most of the site is "
                "in row crops behind the main-line levee, and the riverside portion between the levee and the river "
                "is bottomland hardwood forest that floods in most springs. Interstate 55 is about eight miles west of "
                "the site, and a Class I railroad parallels the highway.")),
            _page("Purpose and Need", (
                "The applicant's purpose is to create a public port and an industrial park with direct access to the "
                "river, the interstate highway system and a Class I railroad, so as to attract heavy industry to a "
                "county that has lost a quarter of its population since 1980. The steel producers that the port "
                "authority has courted need a site of at least 800 acres with barge access for scrap and pig iron, "
                "and they would ship finished coil by barge to customers along the Ohio River and the Gulf Coast, "
                "including fabricators in Louisiana. The port authority considered sites in three other counties "
                "before selecting this one. For its evaluation under the Section 404(b)(1) Guidelines, the Corps "
                "must determine whether there is a practicable alternative with less adverse effect on the aquatic "
                "ecosystem. The basic project purpose is industrial development; the overall project purpose is to "
                "provide a public barge terminal and industrial park on the lower Mississippi River. Because barge "
                "access is central to that purpose, the project is water dependent. Public river ports that the "
                "applicant cites as models include the Tulsa Port of Catoosa in Oklahoma and the Port of Little "
                "Rock.")),
        ], none | {
            "title": "Draft Environmental Impact Statement Osceola Riverport and Industrial Park Development",
            "project_title": "Osceola Riverport and Industrial Park Development",
            "lead_agency": "U.S. Army Corps of Engineers", "document_type": "Draft EIS", "process_type": "EIS",
            "year": "2021", "states": ["AR"]}),

        # POSITIVE, stated late. A spent-fuel storage facility whose location is first stated on page 4 ("about 32
        # miles east of Carlsbad and 34 miles west of Hobbs, in Lea County, New Mexico"). Pages 2 and 3 name only
        # other states: reactors "in Illinois, Pennsylvania and South Carolina" (origins), "Yucca Mountain in
        # Nevada" and "the Idaho National Laboratory" (background); page 4 adds "40 miles west of the Texas state
        # line" (a distance). States is NM alone.
        Case("nrc_storage_facility_location_on_page_four", [
            [("line", "U.S. Nuclear Regulatory Commission", 14, True),
             ("line", "Office of Nuclear Material Safety and Safeguards", 11), ("gap", 50),
             ("line", "Final Environmental Impact Statement for the", 16, True),
             ("line", "Sandhill Consolidated Interim Storage Facility", 18, True),
             ("line", "for Spent Nuclear Fuel", 18, True), ("gap", 30),
             ("line", "Cooperating Agency: Bureau of Land Management", 10), ("gap", 20), ("line", "July 2022", 12)],
            _page("Abstract", (
                "The U.S. Nuclear Regulatory Commission (NRC) staff prepared this environmental impact statement (EIS) "
                "in response to an application from Sandhill Storage Partners, LLC (SSP) for a license to construct "
                "and operate a consolidated interim storage facility (CISF) for spent nuclear fuel and "
                "Greater-Than-Class-C waste. SSP proposes to store up to 5,000 metric tons of uranium (MTU) in the "
                "first phase and up to 40,000 MTU if seven later expansion phases are built, in canisters that are "
                "now stored at the sites of commercial power reactors, including shutdown reactors in Illinois, "
                "Pennsylvania and South Carolina. The canisters would be shipped by rail in NRC-certified "
                "transportation casks and placed in dry storage systems at the CISF for a license term of 40 years. "
                "The Bureau of Land Management is a cooperating agency because the rail spur would cross public "
                "land. After weighing the environmental, economic, technical and other benefits against "
                "environmental and other costs, and considering reasonable alternatives, the NRC staff recommends, "
                "unless safety issues mandate otherwise, that the proposed action, the issuance of a license for "
                "phase 1, be approved. The staff concludes that the impacts on most resources would be SMALL and that "
                "the impacts on socioeconomics and on the transportation of the fuel would be SMALL to MODERATE."), 12),
            _page("1.1 Background", (
                "Spent nuclear fuel from commercial reactors has been stored at the reactor sites since the first "
                "plants began operation. The Nuclear Waste Policy Act of 1982 made the U.S. Department of Energy "
                "responsible for permanent disposal, and the 1987 amendments designated Yucca Mountain in Nevada as "
                "the only site to be characterized for a geologic repository. The Department applied for a "
                "construction authorization for that repository in 2008 but sought to withdraw the application in "
                "2010, and no repository is expected to be available for decades. As a result, the amount of fuel "
                "stored at reactor sites continues to grow, and several shutdown plants now hold only fuel and a "
                "small security force. A consolidated facility would allow fuel to be removed from those sites so "
                "that they could be fully decommissioned and returned to other uses. Dry storage of spent fuel away "
                "from a reactor is not new: the NRC licensed an independent spent fuel storage installation at the "
                "Idaho National Laboratory in 1999 and approved a private facility for the Skull Valley Band of "
                "Goshute Indians in 2006, although that facility was never built. The dry cask systems proposed by "
                "SSP are of the same type used at more than 70 reactor sites.")),
            _page("2.1 The Proposed Action and Site", (
                "The proposed CISF would be built on a 1,040-acre parcel of private land about 32 miles east of "
                "Carlsbad and 34 miles west of Hobbs, in Lea County, New Mexico. The site lies in the Permian Basin, "
                "roughly 40 miles west of the Texas state line, in an area used for cattle grazing, potash mining and "
                "oil and gas production. It is owned by a consortium of the two cities and the county, which would "
                "lease it to SSP. The storage pad would occupy about 330 acres in the center of the parcel, and the "
                "rest would serve as a buffer and as the controlled area required by 10 CFR 72.106. A new rail spur "
                "about 5 miles long would connect the facility to an existing short-line railroad. The facility would "
                "consist of a cask transfer building, a security and administration building, and the storage pad, "
                "on which canisters would be placed in below-grade storage modules. Construction of phase 1 would "
                "take about 2 years and employ up to 200 workers; operations would employ about 55. The site is about "
                "16 miles from the nearest residence and about 35 miles from the Waste Isolation Pilot Plant.")),
        ], none | {
            "title": "Final Environmental Impact Statement for the Sandhill Consolidated Interim Storage Facility "
                     "for Spent Nuclear Fuel",
            "project_title": "Sandhill Consolidated Interim Storage Facility for Spent Nuclear Fuel",
            "lead_agency": "U.S. Nuclear Regulatory Commission", "cooperating_agencies": ["Bureau of Land Management"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2022", "states": ["NM"]}),

        # POSITIVE, a territory. Base disposal and reuse; page 2 is a cover sheet whose "Affected Jurisdiction:
        # Commonwealth of Puerto Rico (Municipalities of Ceiba and Naguabo)" line gives the place, repeated in
        # prose on page 3 ("the eastern tip of Puerto Rico's main island"). Traps: a comment address "North
        # Charleston, SC 29405", tenants relocated "to installations in Florida and Virginia", EPA Region 2 "in
        # New York City" (a state name inside a city's), a comparable reuse "in Florida". States is PR alone.
        Case("navy_base_reuse_puerto_rico", [
            [("line", "Department of the Navy", 15, True),
             ("line", "Base Realignment and Closure Program Management Office", 10), ("gap", 50),
             ("line", "Final Environmental Impact Statement", 20, True),
             ("line", "Disposal and Reuse of the Former", 18, True), ("line", "Naval Activity Roosevelt Roads", 18, True),
             ("gap", 30), ("line", "Cooperating Agency: U.S. Fish and Wildlife Service", 10), ("gap", 30),
             ("line", "March 2007", 12)],
            _page("Abstract", (
                "This final EIS evaluates the potential environmental consequences of the disposal of surplus "
                "federal property at the former Naval Activity Roosevelt Roads by the Navy and its reuse by the Local "
                "Redevelopment Authority (LRA). The station was closed on March 31, 2004, under the Defense "
                "Appropriations Act for Fiscal Year 2004, and its disposal is governed by the Defense Base Closure and "
                "Realignment Act of 1990. Three alternatives are evaluated: the LRA's reuse plan, which calls for a "
                "commercial airport, a marina, resort and residential development and the conservation of about "
                "3,300 acres; a lower-density reuse alternative; and the no-action alternative, under which the "
                "property would remain in caretaker status. For further information, contact the Director, BRAC "
                "Program Management Office Southeast, 4130 Faber Place Drive, Suite 202, North Charleston, SC 29405."),
                12, before=[
                    ("line", "COVER SHEET", 13, True), ("gap", 6),
                    ("line", "Lead Agency: Department of the Navy", 10),
                    ("line", "Cooperating Agency: U.S. Fish and Wildlife Service", 10),
                    ("line", "Title of Proposed Action: Disposal and Reuse of the Former Naval Activity Roosevelt Roads",
                     10),
                    ("line", "Affected Jurisdiction: Commonwealth of Puerto Rico (Municipalities of Ceiba and Naguabo)",
                     10),
                    ("line", "Designation: Final Environmental Impact Statement", 10), ("gap", 12)]),
            _page("1.1 Introduction", (
                "Naval Activity Roosevelt Roads occupies about 8,600 acres on the eastern tip of Puerto Rico's main "
                "island, some 35 miles east of San Juan; former Navy lands on the island of Vieques are the subject "
                "of a separate action. For more than six decades the station supported fleet training in the "
                "Atlantic and the Caribbean, operating an airfield, deep-water piers, fuel storage, family housing and "
                "a hospital. When training on Vieques ended in 2003, Congress directed the Navy to close the station, "
                "and its remaining tenants were relocated, most of them to installations in Florida and Virginia, "
                "before the closure in 2004. About 1,370 acres of the property have since been transferred to the "
                "U.S. Fish and Wildlife Service and to the Commonwealth for conservation, and the rest has been "
                "declared surplus. The Navy's disposal decision will determine how the surplus property is "
                "transferred and under what restrictions; the reuse itself would be carried out by the LRA and "
                "private developers over about 20 years.")),
            _page("1.2 Purpose and Need", (
                "The purpose of the proposed action is to dispose of the surplus property in a manner consistent with "
                "the base closure law and the LRA's reuse plan, so that the property can be redeveloped to create jobs "
                "and economic activity for the region, which lost about 1,200 civilian jobs when the station closed. "
                "The need arises from the statutory direction to close the station and from the Navy's obligation to "
                "transfer surplus property rather than hold it indefinitely at a caretaker cost of about $9 million a "
                "year. Before transfer the Navy must complete the cleanup of contaminated sites under its Installation "
                "Restoration Program, which is overseen by the U.S. Environmental Protection Agency Region 2 in New "
                "York City and by the Commonwealth's Environmental Quality Board. Comparable reuse of closed naval "
                "air stations, such as the conversion of the former Naval Air Station Cecil Field in Florida into a "
                "commercial airport and industrial park, shows what the LRA's plan could achieve."), 14),
        ], none | {
            "title": "Final Environmental Impact Statement Disposal and Reuse of the Former Naval Activity Roosevelt "
                     "Roads",
            "project_title": "Disposal and Reuse of the Former Naval Activity Roosevelt Roads",
            "lead_agency": "Department of the Navy", "cooperating_agencies": ["U.S. Fish and Wildlife Service"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2007", "states": ["PR"]}),

        # POSITIVE, abbreviation. A carbon storage hub "approximately 12 miles west of Casper, WY" (a city then a
        # USPS code, no state name anywhere). Traps in the same form: "Decatur, IL" (a model project), a contact
        # address "Pittsburgh, PA 15236", a consultant's office "in Golden, CO"; and "CO2" throughout. States is
        # WY alone.
        Case("doe_carbon_storage_city_state_abbreviation", [
            [("line", "U.S. Department of Energy", 13), ("line", "Office of Fossil Energy and Carbon Management", 11),
             ("gap", 40), ("line", "Dry Creek Carbon Storage Hub", 22, True),
             ("line", "Draft Environmental Impact Statement", 18, True), ("line", "DOE/EIS-0551", 11), ("gap", 30),
             ("line", "Cooperating Agencies: Bureau of Land Management,", 10),
             ("line", "U.S. Environmental Protection Agency", 10), ("gap", 30), ("line", "February 2024", 12)],
            _page("Summary", (
                "S.1 Introduction. The U.S. Department of Energy (DOE) proposes to provide about $250 million in "
                "cost-shared financial assistance to Dry Creek Storage, LLC for the final design, construction and "
                "initial operation of a commercial-scale facility for the permanent geologic storage of carbon dioxide "
                "(CO2). The storage site lies approximately 12 miles west of Casper, WY, on a mix of private land and "
                "public land administered by the Bureau of Land Management (BLM). Up to 5 million metric tons of CO2 a "
                "year, captured at industrial sources in the region, would be delivered by pipeline and injected "
                "through four Class VI wells into the Tensleep and Madison formations at depths of 8,500 to 10,500 "
                "feet. The project builds on a characterization well drilled in 2022 and on the monitoring methods "
                "demonstrated by the Illinois Basin-Decatur Project in Decatur, IL. S.2 Alternatives. DOE analyzes its "
                "proposed action, under which it would provide the funding, and the no-action alternative, under "
                "which it would not. The BLM would decide whether to grant rights-of-way for the pipeline laterals and "
                "the monitoring wells on public land. S.3 Contact. For further information on this draft EIS, "
                "contact the NEPA Document Manager, National Energy Technology Laboratory, 626 Cochrans Mill Road, "
                "Pittsburgh, PA 15236."), 14),
            _page("1.2 Purpose and Need for DOE Action", (
                "The Infrastructure Investment and Jobs Act of 2021 directed DOE to establish a program to support "
                "the development of commercial-scale storage projects, each able to store at least 50 million metric "
                "tons of CO2 over its life. DOE's purpose is to advance the commercial deployment of geologic storage "
                "by sharing the cost of projects that have completed site characterization and are ready for "
                "permitting and construction. The need arises because few storage sites in the United States have "
                "progressed beyond characterization, and the lack of permitted storage capacity is one of the main "
                "obstacles to the capture of CO2 at power plants and industrial facilities. The Dry Creek site was "
                "selected through a competitive funding opportunity announcement issued in 2022, to which 18 "
                "applications were submitted. Applications were evaluated on technical merit, site "
                "characterization, community benefits and readiness. A project partner, the state geological survey, "
                "provided core data from wells drilled in the 1970s, and the consulting firm that prepared the "
                "environmental information volume did so from its office in Golden, CO.")),
            _page("1.4 Public Involvement", (
                "DOE published a notice of intent in the Federal Register on May 18, 2023, and held public scoping "
                "meetings in Casper and Mills and one virtual meeting. DOE received 96 comment documents. Landowners "
                "asked about the ownership of pore space, which is settled by state law, and about the effect of "
                "injection on their water wells. Ranchers raised the potential for leaks along the pipeline laterals "
                "and the risk to livestock; members of the Eastern Shoshone and Northern Arapaho Tribes asked about "
                "cultural sites along the laterals; and several national organizations questioned whether storage "
                "would prolong the use of fossil fuels. The U.S. Environmental Protection Agency will decide "
                "separately whether to issue the Class VI permits under the Safe Drinking Water Act. The comments are "
                "summarized in Appendix A and were used to define the issues analyzed in Chapter 3."), 12),
        ], none | {
            "title": "Dry Creek Carbon Storage Hub Draft Environmental Impact Statement",
            "project_title": "Dry Creek Carbon Storage Hub", "lead_agency": "Department of Energy",
            "cooperating_agencies": ["Bureau of Land Management", "Environmental Protection Agency"],
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2024", "states": ["WY"],
            "eis_number": "DOE/EIS-0551"}),

        # POSITIVE, via a figure. An LNG export terminal: "Figure 1-1 shows the project site on the North Spit of
        # Coos Bay, in Coos County, Oregon" on page 3; page 2 says nothing of the place. Traps: feed gas "from
        # basins in the Rocky Mountains, chiefly in Wyoming and Colorado" over an existing pipeline (no new one),
        # the design of "the Sabine Pass terminal in Louisiana", and the comment address "Washington, DC 20426".
        # States is OR alone.
        Case("ferc_lng_terminal_figure_shows_site", [
            [("line", "Federal Energy Regulatory Commission", 14, True), ("line", "Office of Energy Projects", 11),
             ("gap", 40), ("line", "North Spit LNG Terminal Project", 22, True),
             ("line", "Draft Environmental Impact Statement", 18, True), ("gap", 20),
             ("line", "FERC/EIS-0314D", 11), ("line", "Docket No. CP22-41-000", 10), ("gap", 20),
             ("line", "Cooperating Agencies:", 10), ("line", "U.S. Department of Energy", 10),
             ("line", "U.S. Army Corps of Engineers", 10), ("line", "U.S. Coast Guard", 10), ("gap", 30),
             ("line", "August 2023", 12)],
            _page("Executive Summary", (
                "North Spit LNG, LLC (North Spit) requests authorization under Section 3 of the Natural Gas Act to "
                "site, construct and operate a liquefied natural gas (LNG) export terminal. The terminal would have a "
                "nominal liquefaction capacity of 7.8 million metric tonnes per annum, two full-containment storage "
                "tanks of 160,000 cubic meters each, and a marine berth able to load one LNG carrier at a time. LNG "
                "would be shipped to customers in Japan, Korea and other Asian markets. Feed gas would reach the "
                "terminal through an existing interstate pipeline system that carries supplies from basins in the "
                "Rocky Mountains, chiefly in Wyoming and Colorado, and from western Canada; no new pipeline is "
                "proposed. The liquefaction trains are of the same design as those in service at the Sabine Pass "
                "terminal in Louisiana. The principal environmental issues are the dredging of the access channel "
                "and slip; effects on Dungeness crab, green sturgeon and other aquatic species; marine traffic and "
                "safety in the bay and across the bar; visual effects on the nearby dunes; and the terminal's "
                "emissions of greenhouse gases. The FERC staff concludes that construction and operation of the "
                "terminal would result in some adverse environmental impacts but that, with the mitigation "
                "recommended in this draft EIS, most would be reduced to less-than-significant levels."), 14),
            _page("1.2 Proposed Facilities", (
                "Figure 1-1 shows the project site on the North Spit of Coos Bay, in Coos County, Oregon, across the "
                "bay from the cities of North Bend and Coos Bay. The terminal would occupy about 200 acres of a former "
                "lumber mill and log yard that has been zoned for industrial use since the 1960s, together with a "
                "60-acre dredged slip connected to the federal navigation channel at channel mile 7.3. Temporary "
                "workspace, worker parking and a materials barge berth would use another 90 acres nearby. The "
                "terminal's power would come from a new 230-kV line built by the local utility and from on-site gas "
                "turbines. Figure 1-2 shows the layout of the liquefaction trains, the storage tanks and the marine "
                "facilities. The site is about 1.5 miles from the nearest residence and 0.6 mile from the boundary of "
                "the national recreation area that the Forest Service manages on the dunes to the north.")),
            _page("1.4 Public Review of This Draft EIS", (
                "The Commission will accept comments on this draft EIS for 90 days after the notice of availability "
                "is published by the Environmental Protection Agency. Comments may be filed electronically through "
                "the eComment or eFiling features of the Commission's website or mailed to the Secretary, Federal "
                "Energy Regulatory Commission, 888 First Street NE, Room 1A, Washington, DC 20426. Please reference "
                "Docket No. CP22-41-000 on all correspondence. Public comment sessions will be held in North Bend and "
                "in Coos Bay. The U.S. Department of Energy, Office of Fossil Energy and Carbon Management, will use "
                "this EIS in deciding whether to authorize exports to nations with which the United States has no "
                "free trade agreement; the Corps will use it for permits under Section 10 and Section 404; and the "
                "Coast Guard will use it to assess the suitability of the waterway for LNG marine traffic. The Oregon "
                "Department of Environmental Quality, which must decide whether to issue a water quality "
                "certification under Section 401 of the Clean Water Act, has reviewed the administrative draft."), 12),
        ], none | {
            "title": "North Spit LNG Terminal Project Draft Environmental Impact Statement",
            "project_title": "North Spit LNG Terminal Project", "lead_agency": "Federal Energy Regulatory Commission",
            "cooperating_agencies": ["Department of Energy", "U.S. Army Corps of Engineers", "U.S. Coast Guard"],
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2023", "states": ["OR"],
            "eis_number": "FERC/EIS-0314D"}),

        # POSITIVE, under a location heading. A vegetation project whose place is given under "1.2 Project
        # Location" on page 3 ("... of the Chequamegon-Nicolet National Forest, in Price and Taylor Counties,
        # Wisconsin"). Traps: sawlogs "bought by mills in Michigan and Minnesota" (markets) and a sensitive-species
        # list covering "national forests from Minnesota to Maine". States is WI alone.
        Case("fs_vegetation_project_location_heading", [
            [("line", "USDA Forest Service", 16, True), ("line", "Eastern Region", 11), ("gap", 70),
             ("line", "Fourmile Vegetation", 24, True), ("line", "Management Project", 24, True), ("gap", 10),
             ("line", "Final Environmental Impact Statement", 16), ("gap", 40),
             ("line", "Responsible Official: Forest Supervisor", 10), ("gap", 30), ("line", "June 2018", 12)],
            _page("Summary", (
                "The Forest Service proposes vegetation management on about 9,800 acres of National Forest System land "
                "in the Fourmile project area over the next ten years. The proposed activities include commercial "
                "thinning of red pine plantations, regeneration harvest of mature aspen, shelterwood harvest and "
                "underplanting to restore oak and white pine, prescribed burning on about 1,400 acres, construction of "
                "6 miles of temporary road and decommissioning of 22 miles of unneeded road. The project would produce "
                "about 92 million board feet of sawtimber and pulpwood. Most of the district's sawlogs in the last "
                "decade were bought by mills in Michigan and Minnesota, and this project is expected to follow that "
                "pattern, although pulpwood would likely stay with local paper mills. Three alternatives were analyzed "
                "in detail: the proposed action; Alternative 3, which drops harvest within northern goshawk "
                "post-fledging areas and most temporary roads; and the no-action alternative. The Forest Supervisor "
                "has identified the proposed action, modified to include the goshawk protections of Alternative 3, as "
                "the preferred alternative. A draft record of decision accompanies this final EIS and is subject to "
                "the objection process at 36 CFR 218."), 14),
            _page("1.2 Project Location", (
                "The Fourmile project area covers approximately 31,000 acres of the Medford-Park Falls Ranger District "
                "of the Chequamegon-Nicolet National Forest, in Price and Taylor Counties, Wisconsin. About 24,500 "
                "acres within the project boundary are National Forest System lands; the remainder is county forest, "
                "industrial forest and small private holdings that are not subject to this decision but are "
                "considered in the cumulative effects analysis. The area lies within the North Central Forest "
                "ecological landscape, a gently rolling glacial plain with many small lakes, forested wetlands and "
                "the headwater streams of the Flambeau and Yellow Rivers. Aspen, northern hardwoods and red pine "
                "plantations dominate the uplands, and black spruce and tamarack the lowlands. The nearest "
                "communities are Medford, about 10 miles to the southwest, and Park Falls, about 20 miles to the "
                "north. State Highway 13 crosses the eastern edge of the area. The vicinity map in Appendix A shows "
                "the project boundary and land ownership.")),
            _page("1.3 Purpose of and Need for Action", (
                "The purpose of the project is to move the vegetation of the project area toward the desired "
                "conditions described in the 2004 Land and Resource Management Plan. Young aspen, a habitat important "
                "for ruffed grouse, American woodcock and golden-winged warbler, is scarce because most stands were "
                "last cut in the 1960s and 1970s and are now past rotation age. Red pine plantations established in "
                "the 1930s by the Civilian Conservation Corps are overstocked and increasingly susceptible to annosum "
                "root disease. Oak and white pine, which were more common before the logging era, are regenerating "
                "poorly under the present canopy. The project would also reduce the road system to the minimum needed "
                "for management, as recommended in the 2015 travel analysis, and would improve aquatic organism "
                "passage at eight road-stream crossings. The Regional Forester's sensitive species list, which covers "
                "national forests from Minnesota to Maine, includes the northern goshawk and the wood turtle, both of "
                "which occur here.")),
        ], none | {
            "title": "Fourmile Vegetation Management Project Final Environmental Impact Statement",
            "project_title": "Fourmile Vegetation Management Project", "lead_agency": "Forest Service",
            "document_type": "Final EIS", "process_type": "EIS", "year": "2018", "states": ["WI"]}),

        # POSITIVE, two states by counties. A gas pipeline: "The project area lies in ten counties of West
        # Virginia and six counties of Virginia." Title first on the cover, agency below it. Traps: supplies from
        # shales "in Pennsylvania and Ohio" (upstream, not part of the project), shippers "in North Carolina and
        # Georgia" (markets), "the Indiana bat" (a state in a species' name), a "Pittsburgh District" of the Corps.
        # States is VA and WV.
        Case("ferc_pipeline_project_area_lies_in_two_states", [
            [("gap", 20), ("line", "Blue Ridge Gateway Pipeline Project", 22, True),
             ("line", "Final Environmental Impact Statement", 17, True), ("gap", 30),
             ("line", "Federal Energy Regulatory Commission", 13), ("line", "Docket No. CP21-114-000", 10),
             ("line", "FERC/EIS-0318F", 10), ("gap", 30),
             ("line", "Cooperating Agencies: U.S. Forest Service; U.S. Army Corps of Engineers;", 10),
             ("line", "Bureau of Land Management; U.S. Fish and Wildlife Service", 10), ("gap", 40),
             ("line", "June 2022", 12)],
            _page("Abstract", (
                "Blue Ridge Gateway Pipeline, LLC (Blue Ridge) proposes to construct and operate about 212 miles of "
                "new 42-inch-diameter natural gas pipeline, three compressor stations totaling 171,600 horsepower, and "
                "related meter stations, valves and pig launchers and receivers. The pipeline would receive gas at its "
                "northern end from gathering systems that collect it from the Marcellus and Utica shales in "
                "Pennsylvania and Ohio, and would deliver up to 2.0 billion cubic feet per day to an existing "
                "interstate pipeline at its southern end. The project area lies in ten counties of West Virginia and "
                "six counties of Virginia. The line would cross about 3.4 miles of the Jefferson National Forest and "
                "the Appalachian National Scenic Trail, and would require amendments to the Forest's land and "
                "resource management plan. The FERC staff concludes that construction and operation of the project "
                "would result in some adverse effects, most of them temporary, but that with the mitigation proposed "
                "by Blue Ridge and the additional measures recommended in this final EIS, the effects would be reduced "
                "to less-than-significant levels, except for the long-term effects on forest cover along the "
                "right-of-way.")),
            _page("1.1 Purpose and Need", (
                "Blue Ridge states that the purpose of the project is to provide timely, cost-effective access to "
                "growing supplies of natural gas from the Appalachian Basin for markets in the Mid-Atlantic and the "
                "Southeast. Blue Ridge has executed long-term precedent agreements for the full design capacity with "
                "six shippers, including local distribution companies and electric utilities in North Carolina and "
                "Georgia, which would use the gas to replace retiring coal-fired generation and to serve residential "
                "and commercial growth. Under Section 7(c) of the Natural Gas Act, the Commission decides whether to "
                "issue a certificate of public convenience and necessity; its decision will be based on a balance of "
                "the public benefits against the adverse effects, including the environmental effects analyzed here. "
                "The Commission does not direct the development of the gas industry's infrastructure or choose "
                "between competing proposals, and it does not consider alternative energy sources to be reasonable "
                "alternatives to a natural gas transportation project.")),
            _page("1.3 Permits, Approvals and Consultations", (
                "In addition to the Commission's certificate, the project would require a special use permit and plan "
                "amendments from the Forest Service; right-of-way grants from the Bureau of Land Management across "
                "federal lands managed by more than one agency; Section 404 permits from the Huntington, Pittsburgh "
                "and Norfolk Districts of the U.S. Army Corps of Engineers; and a biological opinion from the U.S. "
                "Fish and Wildlife Service for the Indiana bat, the northern long-eared bat, the Roanoke logperch and "
                "the candy darter. The West Virginia Department of Environmental Protection and the Virginia "
                "Department of Environmental Quality would decide whether to issue water quality certifications under "
                "Section 401 of the Clean Water Act. The National Park Service was consulted about the crossing of "
                "the Appalachian National Scenic Trail, and the State Historic Preservation Offices of both states "
                "were consulted under Section 106. Comments on the draft EIS were received from 1,732 individuals and "
                "organizations, many of them landowners along the route; responses are in Appendix AA."), 12),
        ], none | {
            "title": "Blue Ridge Gateway Pipeline Project Final Environmental Impact Statement",
            "project_title": "Blue Ridge Gateway Pipeline Project",
            "lead_agency": "Federal Energy Regulatory Commission",
            "cooperating_agencies": ["Forest Service", "U.S. Army Corps of Engineers", "Bureau of Land Management",
                                     "U.S. Fish and Wildlife Service"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2022", "states": ["VA", "WV"],
            "eis_number": "FERC/EIS-0318F"}),

        # NEGATIVE, addresses. A fleet-wide aircraft decision whose basing "will be the subject of a separate,
        # site-specific analysis"; no place is stated. States appear only in a comment address ("JBSA Lackland,
        # TX 78236") and a contractor's offices ("in Colorado Springs, Colorado"). States is None.
        Case("air_force_fleet_decision_addresses_only", [
            [("line", "Department of the Air Force", 15, True), ("line", "Air Education and Training Command", 11),
             ("gap", 60), ("line", "Advanced Pilot Training", 24, True), ("line", "Aircraft Recapitalization", 24, True),
             ("gap", 16), ("line", "Draft Environmental Impact Statement", 16, True), ("gap", 60),
             ("line", "November 2019", 12)],
            _page("Abstract", (
                "The Department of the Air Force proposes to replace its fleet of T-38C Talon aircraft, which has been "
                "used for advanced pilot training since the early 1960s, with a new advanced trainer aircraft and its "
                "ground-based training systems. This environmental impact statement evaluates the fleet-wide "
                "decision: the selection of the replacement aircraft type, the retirement schedule for the existing "
                "fleet, the changes to the training syllabus, and the resulting changes in the number, type and "
                "altitude of training sorties. The Air Force has not decided where the new aircraft will be based. "
                "Each installation that may receive them will be the subject of a separate, site-specific analysis "
                "tiered from this document, and the decision made on the basis of this EIS does not commit the Air "
                "Force to any installation. Comments on this draft EIS may be submitted during the 45-day comment "
                "period by mail to AFCEC/CZN, Attn: APT Recapitalization EIS, 2261 Hughes Avenue, Suite 155, JBSA "
                "Lackland, TX 78236, or by email to the project mailbox listed on the Air Force website.")),
            _page("1.1 Background", (
                "The T-38C has been the Air Force's advanced trainer for more than 55 years. The average aircraft is "
                "now over 50 years old, and structural fatigue, obsolete avionics and rising maintenance costs limit "
                "how much longer the fleet can be kept in service. The T-38C also cannot replicate the high-g "
                "maneuvering, sensor management and data-link tasks that pilots of fifth-generation fighters must "
                "master, so student pilots now receive part of that training in operational fighter units at greater "
                "cost. A replacement program was established in 2010, and after a full and open competition the Air "
                "Force awarded a contract in 2018. The new aircraft would fly the same general training profile as "
                "the T-38C, within existing special use airspace and military training routes, but would spend more "
                "time at medium altitudes and less in the traffic pattern. Noise, air emissions, safety and airspace "
                "use are therefore expected to change in ways that can be evaluated generically here and specifically "
                "at each candidate base later."), 14),
            _page("1.2 Purpose and Need", (
                "The purpose of the proposed action is to provide the Air Force with an advanced trainer that can "
                "prepare pilots for current and future fighter and bomber aircraft. The need arises from the age and "
                "limitations of the T-38C described above and from the Air Force's requirement to graduate about "
                "1,350 pilots a year. Because this EIS addresses the fleet-wide decision, it does not describe the "
                "affected environment of any individual base; representative data on noise, air quality and safety "
                "have been drawn from several existing pilot training wings to bound the range of effects. The "
                "document was prepared for the Air Force Civil Engineer Center by a contractor team working from "
                "offices in Colorado Springs, Colorado, and San Antonio. Questions about the content of this EIS may "
                "be directed to the public affairs office of Air Education and Training Command.")),
        ], none | {
            "title": "Advanced Pilot Training Aircraft Recapitalization Draft Environmental Impact Statement",
            "project_title": "Advanced Pilot Training Aircraft Recapitalization",
            "lead_agency": "Department of the Air Force", "document_type": "Draft EIS", "process_type": "EIS",
            "year": "2019"}),

        # NEGATIVE, state agencies as cooperating agencies. Programmatic loan guarantees for projects that "may be
        # located anywhere in the United States"; "no site is proposed". The North Dakota Industrial Commission
        # and the Wyoming Department of Environmental Quality "participated as cooperating agencies" (so they are
        # listed as cooperating agencies, from page 2; the cover lists none); page 3 compares with projects "near
        # Houston", "in Illinois", "in Texas and Mississippi"; page 4 has a Washington, DC address. States is None.
        Case("doe_programmatic_state_agency_cooperators", [
            [("line", "U.S. Department of Energy", 13, True), ("line", "Loan Programs Office", 11), ("gap", 50),
             ("line", "Draft Programmatic Environmental Impact Statement", 16, True),
             ("line", "for Loan Guarantees to Carbon Capture", 18, True),
             ("line", "and Geologic Storage Projects", 18, True), ("gap", 10), ("line", "DOE/EIS-0560", 10),
             ("gap", 30), ("line", "September 2023", 12)],
            _page("Abstract", (
                "The U.S. Department of Energy (DOE) Loan Programs Office (LPO) prepared this draft programmatic "
                "environmental impact statement (PEIS) to evaluate, at a broad level, the environmental effects of "
                "providing loan guarantees under Title XVII of the Energy Policy Act of 2005 to projects that capture "
                "carbon dioxide from power plants and industrial facilities, transport it by pipeline, and store it "
                "in deep saline formations or depleted oil and gas reservoirs. LPO expects to receive applications for "
                "such projects over the next ten years, but no application is evaluated in this PEIS and no site is "
                "proposed. Projects may be located anywhere in the United States where suitable geology, a source of "
                "carbon dioxide and a willing sponsor coincide. The PEIS describes the impacts common to these "
                "projects and identifies the mitigation measures that LPO expects applicants to adopt; each project "
                "that LPO considers for a loan guarantee would be the subject of a tiered, site-specific NEPA review. "
                "The North Dakota Industrial Commission and the Wyoming Department of Environmental Quality, which "
                "administer the Underground Injection Control program for Class VI wells in their states, "
                "participated as cooperating agencies because of their experience in permitting storage projects."),
                14),
            _page("1.1 Introduction", (
                "Capturing carbon dioxide and storing it permanently underground is one of the few options available "
                "for reducing emissions from cement, steel, ethanol and natural gas processing facilities, and it can "
                "also reduce emissions from fossil-fueled power plants. The technology has been demonstrated at "
                "several scales. A retrofit of a coal-fired power plant near Houston captured about 1.4 million tons "
                "a year until 2020, an ethanol plant in Illinois has injected carbon dioxide into the Mt. Simon "
                "Sandstone since 2011, and enhanced oil recovery operations in Texas and Mississippi have used carbon "
                "dioxide for decades. Yet few commercial projects have been financed, because capture equipment is "
                "expensive, storage sites take years to characterize and permit, and the revenue from tax credits is "
                "uncertain. Title XVII authorizes LPO to guarantee loans for projects that avoid, reduce or sequester "
                "greenhouse gases and employ new or significantly improved technology. The Inflation Reduction Act of "
                "2022 increased the credit subsidy available to LPO and broadened the projects that may qualify.")),
            _page("1.2 Purpose and Need for Agency Action", (
                "LPO's purpose is to establish a consistent, efficient framework for the environmental review of "
                "carbon capture and storage projects that apply for loan guarantees, and to identify, before "
                "applications arrive, the resource areas and mitigation measures that will require attention at the "
                "site-specific stage. The need for the action arises from the expected number of applications and "
                "from the commonality of their effects: capture facilities, pipelines and injection wells have "
                "similar construction footprints, emissions, water requirements and risks wherever they are built. A "
                "programmatic review allows LPO to analyze these common effects once and to focus later reviews on "
                "what is unique to each site. Comments on this draft PEIS may be submitted through the LPO website or "
                "mailed to the LPO NEPA Compliance Officer, 1000 Independence Avenue SW, Washington, DC 20585."), 12),
        ], none | {
            "title": "Draft Programmatic Environmental Impact Statement for Loan Guarantees to Carbon Capture and "
                     "Geologic Storage Projects",
            "project_title": "Loan Guarantees to Carbon Capture and Geologic Storage Projects",
            "lead_agency": "Department of Energy",
            "cooperating_agencies": ["North Dakota Industrial Commission",
                                     "Wyoming Department of Environmental Quality"],
            "document_type": "Programmatic Draft EIS", "process_type": "EIS", "year": "2023",
            "eis_number": "DOE/EIS-0560"}),

        # NEGATIVE, comparisons. A national ballast-water standard for ships "in waters of the United States".
        # States appear as comparisons ("similar to those ... on crude oil tankers calling at terminals in Texas
        # and Louisiana"), test facilities ("in Superior, Wisconsin", "in Maryland"), trade routes ("the Pacific
        # Northwest and Alaska trades") and state programs ("California's Marine Invasive Species Act", "the State
        # of New York"). States is None.
        Case("uscg_ballast_water_comparisons", [
            [("line", "U.S. Coast Guard", 16, True), ("line", "Department of Homeland Security", 10), ("gap", 50),
             ("line", "Standards for Living Organisms", 20, True),
             ("line", "in Ships' Ballast Water Discharged", 20, True), ("line", "in U.S. Waters", 20, True),
             ("gap", 20), ("line", "Final Programmatic Environmental Impact Statement", 15, True), ("gap", 30),
             ("line", "Docket No. USCG-2001-10486", 10), ("gap", 30), ("line", "April 2012", 12)],
            _page("Executive Summary", (
                "The U.S. Coast Guard proposes to amend its regulations on ballast water management by establishing a "
                "standard for the allowable concentration of living organisms in ballast water discharged from ships "
                "in waters of the United States, and by establishing an approval process for ballast water management "
                "systems. Ships take on ballast water to maintain stability and trim and discharge it when they load "
                "cargo; in doing so they move plankton, larvae, pathogens and other organisms between ports around the "
                "world. Some of those organisms have become established and caused serious harm, among them the zebra "
                "and quagga mussels, which clog water intakes across much of the interior of the country, and the "
                "European green crab. The action would apply to vessels equipped with ballast tanks that operate in "
                "waters of the United States and are bound for ports or places in the United States, with exceptions "
                "for certain vessels that operate only within a limited area. Four action alternatives, ranging from "
                "the standard adopted by the International Maritime Organization to a standard 1,000 times more "
                "stringent, and the no-action alternative are evaluated."), 14),
            _page("1.3 Experience with Treatment Systems", (
                "Several kinds of ballast water treatment systems, using filtration, ultraviolet light, "
                "electrochlorination or deoxygenation, have been tested on ships and at land-based test facilities. "
                "The systems most likely to be installed under the preferred alternative are similar to those that "
                "have been operated since 2009 on crude oil tankers calling at terminals in Texas and Louisiana, and "
                "to the systems installed on ferries and cruise ships in the Pacific Northwest and Alaska trades. "
                "Land-based testing has been carried out at the Great Ships Initiative facility in Superior, "
                "Wisconsin, and at the Maritime Environmental Resource Center in Maryland, using the test protocols "
                "developed under the Environmental Protection Agency's Environmental Technology Verification program. "
                "The experience of these programs suggests that systems meeting the International Maritime "
                "Organization standard are commercially available, whereas no system has yet shown that it can meet "
                "a standard 100 or 1,000 times more stringent, because methods for counting organisms at such low "
                "concentrations do not yet exist.")),
            _page("1.4 Relationship to State Programs", (
                "Several coastal states have adopted their own ballast water requirements. California's Marine "
                "Invasive Species Act requires ships to meet interim performance standards considerably stricter than "
                "the Coast Guard's proposed Phase-One standard, and the State of New York added conditions to the "
                "Environmental Protection Agency's Vessel General Permit that would require standards 100 times more "
                "stringent. The Coast Guard's standard would not preempt these state requirements, because the "
                "National Invasive Species Act of 1996 preserves the authority of states to adopt more stringent "
                "measures. The Coast Guard consulted with the states through the Aquatic Nuisance Species Task Force "
                "and with the Great Lakes Commission, and it will continue to work with the states, the Environmental "
                "Protection Agency and the maritime industry to harmonize requirements as treatment and monitoring "
                "technology matures.")),
        ], none | {
            "title": "Standards for Living Organisms in Ships' Ballast Water Discharged in U.S. Waters Final "
                     "Programmatic Environmental Impact Statement",
            "project_title": "Standards for Living Organisms in Ships' Ballast Water Discharged in U.S. Waters",
            "lead_agency": "U.S. Coast Guard", "document_type": "Programmatic Final EIS", "process_type": "EIS",
            "year": "2012"}),

        # NEGATIVE, a species' range and tribes' reservations. A permit rule that "would apply wherever eagles
        # occur in the United States". States appear in the eagles' range ("nest in every one of the lower 48
        # states and in Alaska", "Wyoming, Montana and Colorado hold a large share"), a repository "in Commerce
        # City, Colorado", and reservations extending across states ("the Navajo Nation in Arizona, New Mexico and
        # Utah"). States is None.
        Case("fws_eagle_rule_species_range_tribes", [
            [("line", "U.S. Fish and Wildlife Service", 14), ("line", "Division of Migratory Bird Management", 11),
             ("gap", 40), ("line", "Draft Programmatic", 22, True), ("line", "Environmental Impact Statement", 22, True),
             ("line", "for the Eagle Rule Revision", 18, True), ("gap", 40),
             ("line", "U.S. Department of the Interior", 10), ("gap", 20), ("line", "June 2015", 12)],
            _page("Abstract", (
                "The U.S. Fish and Wildlife Service (Service) proposes to revise the regulations at 50 CFR 22 that "
                "govern permits for the non-purposeful take of bald eagles and golden eagles under the Bald and Golden "
                "Eagle Protection Act. The revisions would extend the maximum term of programmatic permits from 5 to "
                "30 years, change the preservation standard and the way eagle management units are defined, and set "
                "new fees and monitoring requirements. The rule would apply wherever eagles occur in the United "
                "States, and the Service expects most permit applications to come from wind energy facilities, "
                "electric utilities and transportation agencies. This draft PEIS evaluates the effects of the "
                "revisions on eagle populations, other migratory birds, the cultural and religious values of Native "
                "Americans, and the economic interests of regulated industries. Five alternatives are analyzed. The "
                "Service's preferred alternative, Alternative 3, would set take limits based on the most recent "
                "population estimates and would require compensatory mitigation for golden eagles at a ratio of 1.2 "
                "to 1.")),
            _page("3.1 Eagle Populations and Range", (
                "Bald eagles nest in every one of the lower 48 states and in Alaska, and their population has grown "
                "more than tenfold since the species was listed as endangered in 1978; the largest breeding "
                "concentrations are in Alaska, Florida, Minnesota, Wisconsin and the Chesapeake Bay region. Golden "
                "eagles are found mainly in the West. Their breeding range extends from Alaska south through the "
                "Rocky Mountain and Great Basin states to Mexico, and wintering birds move as far east as the "
                "Appalachians. Surveys since 2003 indicate that the golden eagle population in the western United "
                "States is stable at about 31,800 birds but that it cannot sustain additional unmitigated mortality. "
                "Collisions with wind turbines, electrocution on power lines, lead poisoning and vehicle strikes are "
                "the principal human causes of death. Wyoming, Montana and Colorado hold a large share of the "
                "breeding population, and wind development there is therefore of particular concern."), 14),
            _page("3.2 Tribal Interests", (
                "Eagles are sacred to many Native American tribes, and their feathers and parts are used in religious "
                "ceremonies. The National Eagle Repository in Commerce City, Colorado, receives eagles found dead and "
                "distributes feathers and parts to enrolled members of federally recognized tribes; the wait for a "
                "whole golden eagle is about two years. Tribes whose reservations extend across several states, such "
                "as the Navajo Nation in Arizona, New Mexico and Utah and the Standing Rock Sioux Tribe in North "
                "Dakota and South Dakota, said during government-to-government consultation that take permitted at "
                "wind facilities could reduce the number of eagles near their lands and the supply of feathers for "
                "ceremonial use. The Service held 12 consultation meetings in 2014 and received written comments from "
                "34 tribes. The Service also considered the Hopi Tribe's request to continue the traditional "
                "gathering of golden eaglets, which is authorized under a separate permit.")),
        ], none | {
            "title": "Draft Programmatic Environmental Impact Statement for the Eagle Rule Revision",
            "project_title": "Eagle Rule Revision", "lead_agency": "U.S. Fish and Wildlife Service",
            "document_type": "Programmatic Draft EIS", "process_type": "EIS", "year": "2015"}),

        # NEGATIVE, nationwide with examples. Grant programs awarded "throughout the United States and its
        # territories", so "no particular location is evaluated"; a page of past projects names Iowa, Louisiana,
        # New Jersey, Oklahoma, Alabama, California, Oregon and North Carolina, "not proposed actions". A logo word
        # above the agency. States is None.
        Case("fema_nationwide_grants_state_examples", [
            [("line", "FEMA", 30, True), ("line", "Federal Emergency Management Agency", 11),
             ("line", "Department of Homeland Security", 10), ("gap", 50),
             ("line", "Hazard Mitigation Assistance Programs", 22, True),
             ("line", "Draft Programmatic Environmental Impact Statement", 16, True), ("gap", 40),
             ("line", "August 2023", 12)],
            _page("Executive Summary", (
                "The Federal Emergency Management Agency (FEMA) provides grants through its Hazard Mitigation "
                "Assistance (HMA) programs to states, tribes, territories and local governments for projects that "
                "reduce the risk of loss of life and property from future disasters. The programs are the Hazard "
                "Mitigation Grant Program, the Flood Mitigation Assistance program and Building Resilient "
                "Infrastructure and Communities. FEMA has prepared this draft programmatic environmental impact "
                "statement (PEIS) to evaluate the types of mitigation projects it funds, so that future project "
                "reviews can tier from it. The PEIS covers the acquisition and demolition of flood-prone property, "
                "the elevation and floodproofing of structures, safe rooms, wildfire fuel reduction, soil "
                "stabilization, drainage improvements, and nature-based solutions such as living shorelines and "
                "floodplain restoration. Because grants are awarded throughout the United States and its territories, "
                "no particular location is evaluated; the affected environment is described at the national level, "
                "organized by FEMA region."), 14),
            _page("1.2 Examples of Funded Projects", (
                "The types of projects analyzed in this PEIS are illustrated by projects that FEMA has funded in the "
                "past. After the floods of 2008, for example, the City of Cedar Rapids in Iowa acquired and demolished "
                "more than 1,300 flood-damaged homes, and the land was converted to open space. Parishes in Louisiana "
                "and communities along the New Jersey shore elevated several thousand homes after Hurricanes Katrina "
                "and Sandy. School districts in Oklahoma and Alabama have built tornado safe rooms that shelter entire "
                "student bodies, and counties in California and Oregon have created defensible space and shaded fuel "
                "breaks around communities at risk of wildfire. In North Carolina, the state's acquisition program "
                "removed more than 4,000 homes from floodplains after Hurricane Floyd. These examples are not "
                "proposed actions; they are described to show the range of activities and effects that the "
                "programmatic analysis must address.")),
            _page("1.3 Purpose and Need", (
                "The purpose of the proposed action is to streamline the environmental review of HMA projects while "
                "ensuring that their effects are fully considered. FEMA reviews several thousand HMA projects each "
                "year, most of them under categorical exclusions or programmatic environmental assessments prepared "
                "by its regional offices. Projects that do not fit those documents, such as large drainage projects "
                "or projects in wetlands and floodplains, require individual environmental assessments that can "
                "delay funding by a year or more. The need for the action arises from the growing number and size of "
                "HMA grants after the Disaster Recovery Reform Act of 2018 and the Infrastructure Investment and "
                "Jobs Act, which together have more than tripled annual HMA funding. Comments on this draft PEIS may "
                "be submitted at www.regulations.gov under Docket ID FEMA-2023-0009, or mailed to the Office of "
                "Environmental Planning and Historic Preservation, FEMA, 400 C Street SW, Washington, DC 20472."), 12),
        ], none | {
            "title": "Hazard Mitigation Assistance Programs Draft Programmatic Environmental Impact Statement",
            "project_title": "Hazard Mitigation Assistance Programs",
            "lead_agency": "Federal Emergency Management Agency", "document_type": "Programmatic Draft EIS",
            "process_type": "EIS", "year": "2023"}),

        # NEGATIVE, markets, accident sites and state laws. A national tank-car rule that "would apply to
        # railroads and shippers throughout the country". States appear as origins and destinations ("from the
        # Bakken formation of North Dakota and Montana to refineries in Washington, Pennsylvania, New Jersey and
        # Louisiana"), accident sites ("Casselton, North Dakota", "Lynchburg, Virginia"), and state laws and
        # agencies ("the Washington State Environmental Policy Act", "the California Environmental Quality Act",
        # "the State of Minnesota"). States is None.
        Case("phmsa_tank_car_rule_markets_state_laws", [
            [("line", "U.S. Department of Transportation", 10),
             ("line", "Pipeline and Hazardous Materials Safety Administration", 13, True), ("gap", 40),
             ("line", "Enhanced Tank Car Standards and", 20, True), ("line", "Operational Controls for", 20, True),
             ("line", "High-Hazard Flammable Trains", 20, True), ("gap", 10),
             ("line", "Final Environmental Impact Statement", 16, True), ("gap", 30),
             ("line", "Lead Agency: Pipeline and Hazardous Materials Safety Administration", 10),
             ("line", "Cooperating Agency: Federal Railroad Administration", 10), ("gap", 30),
             ("line", "April 2015", 12)],
            _page("Summary", (
                "The Pipeline and Hazardous Materials Safety Administration (PHMSA), in coordination with the Federal "
                "Railroad Administration (FRA), is amending the Hazardous Materials Regulations to reduce the "
                "consequences and the likelihood of accidents involving trains that carry large volumes of flammable "
                "liquids. The rule would establish a new DOT-117 tank car specification with a thicker shell, a "
                "full-height head shield, a jacket and thermal protection; set a schedule for retrofitting or "
                "retiring older DOT-111 cars; require electronically controlled pneumatic brakes on some trains; "
                "restrict speeds; and require routing analyses and notification to state emergency response "
                "commissions. The rule would apply to railroads and shippers throughout the country. The volume of "
                "crude oil moved by rail grew from about 9,500 carloads in 2008 to more than 490,000 in 2014, most of "
                "it from the Bakken formation of North Dakota and Montana to refineries in Washington, Pennsylvania, "
                "New Jersey and Louisiana, and ethanol moves in unit trains from plants in Iowa, Nebraska and Illinois "
                "to blending terminals in California, New York and Texas."), 14),
            _page("1.2 Purpose and Need", (
                "The purpose of the rule is to reduce the risk to people, property and the environment from the rail "
                "transportation of flammable liquids, a risk that has grown with the volumes shipped and the length "
                "of unit trains. The need is shown by a series of derailments since 2013: at Lac-Megantic, Quebec, "
                "where 47 people were killed; at Aliceville, Alabama; at Casselton, North Dakota; at Lynchburg, "
                "Virginia, where tank cars spilled crude oil into the James River; and at Mount Carbon, West "
                "Virginia. In each case DOT-111 or CPC-1232 tank cars were punctured or their valves failed, and the "
                "released crude oil or ethanol ignited. The National Transportation Safety Board has recommended that "
                "the tank car fleet be upgraded and that railroads be required to plan routes for hazardous materials "
                "using a risk assessment. PHMSA's analysis shows that without the rule about 15 mainline derailments "
                "of trains carrying flammable liquids could be expected each year through 2034.")),
            _page("1.4 State and Local Review", (
                "Several states have undertaken their own reviews of facilities that would load or unload crude oil "
                "trains. The largest such review is being conducted under the Washington State Environmental Policy "
                "Act for a proposed oil terminal at the Port of Vancouver, and refinery rail spurs have been reviewed "
                "under the California Environmental Quality Act. The State of Minnesota has required railroads to "
                "file emergency response plans, and the New York Department of Environmental Conservation has required "
                "additional spill response capability along the Hudson River. The rule would not preempt state "
                "reviews of terminals and other fixed facilities, which are not part of this action, but under the "
                "Hazardous Materials Transportation Act it would preempt state requirements on tank car design that "
                "differ from the federal standards. PHMSA and FRA received more than 3,200 comments on the proposed "
                "rule, including comments from 14 governors and from the attorneys general of several states."), 12),
        ], none | {
            "title": "Enhanced Tank Car Standards and Operational Controls for High-Hazard Flammable Trains Final "
                     "Environmental Impact Statement",
            "project_title": "Enhanced Tank Car Standards and Operational Controls for High-Hazard Flammable Trains",
            "lead_agency": "Pipeline and Hazardous Materials Safety Administration",
            "cooperating_agencies": ["Federal Railroad Administration"], "document_type": "Final EIS",
            "process_type": "EIS", "year": "2015"}),
    ]


CASES = _cases()


def write_set(folder: Path) -> Path:
    """Every case as ``<name>.pdf`` in ``folder`` and ``expected.csv`` beside them; returns the CSV's path."""
    return cover_layouts.write_set(folder, CASES)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.documents.body_states_heldout OUT_DIR")
    print(write_set(Path(sys.argv[1])))
