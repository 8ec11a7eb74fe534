"""A held-out set for the states read from a document's body: twelve EIS-like documents made as PDFs, written
without sight of the extractor's rules, whose covers name no state, territory or state abbreviation, so that
the place of the project can only come from the prose of pages 2-4 (abstract, summary, purpose and need,
background, alternatives, affected environment). Seven say where the project is, each as its agency would say
it: counties with the state, a town with the state, several states along a route, a place named only in
passing, an offshore lease area known by its landfall, a reservation known by its county and nearest city, and
a military installation whose state comes only on page 4. Five never say where the project is (national and
servicewide programs). All twelve name states in other roles: past projects, agency and consultant offices,
data sources, interstate compacts and court cases, the range of a species or an aquifer, where materials come
from or power goes, alternatives eliminated, and public meetings in several cities. Each states the values a
careful reader would write down from the document; None where the document does not say.

    python -m tests.documents.body_states_heldout_c OUT_DIR   # writes the PDFs and expected.csv
"""
from __future__ import annotations

import sys
from pathlib import Path

from tests.documents import cover_layouts
from tests.documents.cover_layouts import EXPECTED_FIELDS, Case


def _page(heading: str, text: str, size: float = 13) -> list[tuple]:
    """A body page: a bold heading line, then one paragraph in 10-point type."""
    return [("line", heading, size, True), ("gap", 4), ("body", text)]


def _cases() -> list[Case]:
    none = dict.fromkeys(EXPECTED_FIELDS)
    return [
        # A state highway widening (FHWA with the state DOT): the abstract places it "in Boone and Story
        # Counties, Iowa". Other states: the Lincoln Highway's ends (New York City, San Francisco, no state
        # named), crash factors from the Texas A&M Transportation Institute, a similar expressway near Grand
        # Island, Nebraska (a past project), the consultant's office in Omaha, Nebraska, and the "Indiana bat"
        # (a species' name). Expected: IA only.
        Case("fhwa_highway_widening_counties", [
            [("line", "U.S. Department of Transportation", 11), ("line", "Federal Highway Administration", 14, True),
             ("gap", 50), ("line", "U.S. 30 Corridor Improvements", 22, True),
             ("line", "Draft Environmental Impact Statement", 17, True),
             ("line", "and Section 4(f) Evaluation", 15, True), ("gap", 24),
             ("line", "Submitted pursuant to 42 U.S.C. 4332(2)(c) and 49 U.S.C. 303", 9), ("gap", 10),
             ("line", "Cooperating Agency: U.S. Army Corps of Engineers", 10), ("gap", 30),
             ("line", "November 2022", 12)],
            _page("Abstract",
                  "The Federal Highway Administration (FHWA) and the Iowa Department of Transportation (Iowa DOT) "
                  "propose to reconstruct and widen U.S. Highway 30 (U.S. 30) between the east edge of the City of "
                  "Boone and the Interstate 35 (I-35) interchange at Ames, a distance of approximately 14.2 miles "
                  "in Boone and Story Counties, Iowa. The existing facility is a two-lane rural primary highway "
                  "with at-grade intersections, narrow shoulders, and a bridge over the Des Moines River built in "
                  "1956. This Draft Environmental Impact Statement (Draft EIS) evaluates the No Build Alternative "
                  "and three build alternatives: Alternative 1, widening to a four-lane divided expressway on the "
                  "existing alignment; Alternative 2, a four-lane divided expressway on new alignment up to 0.8 "
                  "mile south of the existing road; and Alternative 3, a hybrid that follows the existing road "
                  "except at the river crossing. The build alternatives would require between 412 and 538 acres of "
                  "new right-of-way, most of it prime farmland, and would affect between 3.1 and 6.8 acres of "
                  "wetlands regulated under Section 404 of the Clean Water Act. The Draft Section 4(f) Evaluation "
                  "addresses the use of land from Ledges State Park and from two farmsteads eligible for the "
                  "National Register of Historic Places. Comments on this Draft EIS may be submitted at the public "
                  "hearings or in writing to the FHWA Iowa Division, 105 Sixth Street, Ames, Iowa 50010, until "
                  "January 20, 2023."),
            _page("1.0 Purpose and Need",
                  "The purpose of the project is to improve safety, accommodate projected traffic, and provide a "
                  "reliable link for freight moving on the regional highway network. U.S. 30 follows the route of "
                  "the historic Lincoln Highway, which ran from Times Square in New York City to Lincoln Park in "
                  "San Francisco, and it is designated a Commercial and Industrial Network route. Between Boone and "
                  "I-35 the highway carries 11,800 vehicles per day, of which 22 percent are trucks serving the "
                  "ethanol plants, grain elevators and livestock operations of the area; the 2045 forecast is "
                  "17,400 vehicles per day. The crash rate on the two-lane section from 2016 through 2020 was 1.6 "
                  "times the statewide average for comparable rural primary roads, and 7 of the 9 fatal crashes "
                  "were head-on or cross-median collisions. Predicted crash reductions were estimated with the "
                  "Highway Safety Manual and with crash modification factors developed by the Texas A&M "
                  "Transportation Institute for rural divided highways. The segment of U.S. 30 east of Ames was "
                  "widened to four lanes in 2009, and a comparable expressway conversion near Grand Island, "
                  "Nebraska, completed in 2015 with a similar median design, has seen a 40 percent reduction in "
                  "severe crashes. The Ames Area Metropolitan Planning Organization and the Boone County Board of "
                  "Supervisors both identify the widening as their highest regional transportation priority, and "
                  "the project is included in the current Five-Year Transportation Improvement Program."),
            _page("3.0 Affected Environment",
                  "The study area lies in the Des Moines Lobe landform region, a gently rolling till plain left by "
                  "the last glacial advance, dissected where the Des Moines River and its tributaries have cut "
                  "valleys as much as 150 feet deep. About 86 percent of the land is in row crops, chiefly corn and "
                  "soybeans, and most soils are classified as prime farmland. Wooded bluffs, sandstone outcrops and "
                  "floodplain forest along the river provide the only extensive wildlife habitat. Acoustic surveys "
                  "in the summer of 2021 recorded the Indiana bat and the northern long-eared bat, both listed "
                  "under the Endangered Species Act, in the riparian woodland near the existing bridge; tree "
                  "clearing would therefore be limited to the period from October 1 through March 31. Field surveys "
                  "of wetlands, waters and cultural resources were conducted by HDR Engineering of Omaha, Nebraska, "
                  "under contract to Iowa DOT; 14 archaeological sites were recorded, 3 of which are recommended "
                  "eligible for the National Register of Historic Places. Ledges State Park, managed by the "
                  "Department of Natural Resources, adjoins the existing right-of-way for 0.6 mile and receives "
                  "about 500,000 visitors a year. The communities along the corridor are small; minority and "
                  "low-income populations were identified in two census block groups in Boone, and the analysis in "
                  "Section 3.4 found no disproportionately high and adverse effects on them."),
        ], none | {
            "title": "U.S. 30 Corridor Improvements Draft Environmental Impact Statement and Section 4(f) "
                     "Evaluation",
            "project_title": "U.S. 30 Corridor Improvements", "lead_agency": "Federal Highway Administration",
            "cooperating_agencies": ["U.S. Army Corps of Engineers"], "document_type": "Draft EIS",
            "process_type": "EIS", "year": "2022", "states": ["IA"]}),

        # A Reclamation rural water system: the summary places the intake "near Logan, New Mexico" and names the
        # cities and counties served. Other states: the High Plains aquifer's range ("from South Dakota and
        # Wyoming south to Texas"), the Canadian River Compact and a Supreme Court case naming Oklahoma and
        # Texas, pipe from a plant in Birmingham, Alabama, and alternatives eliminated that would have drawn on a
        # desalination plant in El Paso, Texas, or on Lake Meredith. Expected: NM only.
        Case("reclamation_rural_water_city_state", [
            [("line", "U.S. Department of the Interior", 11), ("line", "Bureau of Reclamation", 15, True),
             ("gap", 60), ("line", "Eastern Plains Rural Water System", 22, True),
             ("line", "Final Environmental Impact Statement", 18, True), ("gap", 30),
             ("line", "Cooperating Agencies: U.S. Army Corps of Engineers; Bureau of Land Management", 10),
             ("gap", 40), ("line", "August 2015", 12)],
            _page("Summary",
                  "The Bureau of Reclamation (Reclamation) has prepared this Final Environmental Impact Statement "
                  "(EIS) to evaluate the effects of providing federal funding for the design and construction of "
                  "the Eastern Plains Rural Water System (Project). The Eastern Plains Water Utility Authority "
                  "(Authority), a joint powers authority formed by its member communities, is the Project sponsor. "
                  "The Project would divert up to 16,450 acre-feet per year of water stored in Ute Reservoir, near "
                  "Logan, New Mexico, treat it at a new intake and water treatment plant near the reservoir, and "
                  "convey it through approximately 150 miles of buried transmission pipeline, with pump stations "
                  "and storage tanks, to the cities of Clovis, Portales and Texico, the Village of Elida, and rural "
                  "water users in Curry, Roosevelt and Quay Counties. The Project was authorized by Title IX, "
                  "Subtitle B, of the Omnibus Public Land Management Act of 2009 (Public Law 111-11), which "
                  "provides that the federal share of construction costs shall not exceed 75 percent. "
                  "Reclamation's proposed action is to fund, review and approve the design of the Project; the "
                  "Authority would own, operate and maintain the completed system. This Final EIS responds to the "
                  "96 comment letters received on the Draft EIS published in October 2014; changes from the Draft "
                  "EIS are marked in the margin, and the responses appear in Appendix K. Reclamation has identified "
                  "the Preferred Alternative described in Chapter 2 and will document its decision in a Record of "
                  "Decision no sooner than 30 days after the Environmental Protection Agency publishes the notice "
                  "of availability of this Final EIS."),
            _page("Chapter 1 - Purpose of and Need for Action",
                  "The communities to be served now rely entirely on groundwater pumped from the High Plains "
                  "aquifer, the formation commonly called the Ogallala, which underlies about 174,000 square miles "
                  "in parts of eight states from South Dakota and Wyoming south to Texas. Because recharge beneath "
                  "the Southern High Plains is minimal, the aquifer is effectively being mined. The U.S. Geological "
                  "Survey's High Plains Water-Level Monitoring Study reports declines of more than 100 feet since "
                  "predevelopment beneath parts of the service area, and the saturated thickness beneath Clovis and "
                  "Portales is projected to fall below the level needed for municipal wells within 25 to 40 years. "
                  "Several municipal wells have already been abandoned, and Cannon Air Force Base, the largest "
                  "employer in the region, has identified water supply as a risk to its mission. The purpose of "
                  "the proposed action is to provide a long-term, reliable and renewable supply of drinking water "
                  "that reduces dependence on the declining aquifer. Ute Reservoir, completed in 1963 on the "
                  "Canadian River, holds water available for this purpose. Storage on the Canadian River below "
                  "Conchas Dam is governed by the Canadian River Compact among New Mexico, Oklahoma and Texas, "
                  "approved by Congress in 1952; the Supreme Court's decision in Oklahoma and Texas v. New Mexico, "
                  "501 U.S. 221 (1991), and the stipulation that followed limit conservation storage below the "
                  "dam to 200,000 acre-feet. The Interstate Stream Commission holds the reservoir's water rights "
                  "and has contracted 24,000 acre-feet per year to the Authority."),
            _page("Chapter 2 - Alternatives",
                  "Reclamation evaluated two alternatives in detail. Under the No Action Alternative, Reclamation "
                  "would not fund the Project, and the member communities would continue to drill replacement "
                  "wells in the declining aquifer, with rising pumping costs and worsening water quality. Under the "
                  "Proposed Action, the Preferred Alternative, the intake would be built on the north shore of Ute "
                  "Reservoir, and the pipeline would follow existing highway and county road rights-of-way for "
                  "about 80 percent of its length. The pipeline would be ductile iron and polyvinyl chloride pipe "
                  "12 to 42 inches in diameter; ductile iron pipe would be shipped from the manufacturer's plant in "
                  "Birmingham, Alabama, and staged at yards in Tucumcari and Clovis. Several other alternatives "
                  "were considered and eliminated from detailed study. Desalination of brackish groundwater, as at "
                  "the Kay Bailey Hutchison Desalination Plant in El Paso, Texas, was eliminated because suitable "
                  "brackish aquifers within 50 miles are too thin to yield the needed supply and concentrate "
                  "disposal would require deep injection wells. Purchasing water from Lake Meredith through the "
                  "Canadian River Municipal Water Authority was eliminated because that reservoir has been near its "
                  "lowest recorded levels and the authority's contracts are fully committed to its member cities. "
                  "Water reuse and conservation were found to be important complements but, alone, could meet less "
                  "than 15 percent of the 2060 demand. A route along the BNSF Railway was eliminated because the "
                  "railroad would not grant a longitudinal easement."),
        ], none | {
            "title": "Eastern Plains Rural Water System Final Environmental Impact Statement",
            "project_title": "Eastern Plains Rural Water System", "lead_agency": "Bureau of Reclamation",
            "cooperating_agencies": ["U.S. Army Corps of Engineers", "Bureau of Land Management"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2015", "states": ["NM"]}),

        # A light rail extension (FTA with the local transit authority): the place is said only in passing, in
        # the sponsor's name (Utah Transit Authority), in "faster than any other part of Utah" and in the Salt
        # Lake Valley cities; no sentence is given to the location. Other states: peer systems in Denver,
        # Colorado; Portland, Oregon; and Sacramento, California (a data check), rail cars assembled in
        # Sacramento, California (where materials come from), and FTA's regional office in Denver.
        # Expected: UT only.
        Case("fta_light_rail_in_passing", [
            [("line", "U.S. Department of Transportation", 11), ("line", "Federal Transit Administration", 14, True),
             ("gap", 50), ("line", "Southwest Valley Transit Corridor", 22, True),
             ("line", "Draft Environmental Impact Statement", 18, True), ("gap", 30),
             ("line", "Cooperating Agency: Federal Highway Administration", 10), ("gap", 40),
             ("line", "March 2019", 12)],
            _page("Abstract",
                  "The Federal Transit Administration (FTA) and the Utah Transit Authority (UTA) have prepared this "
                  "Draft Environmental Impact Statement (Draft EIS) for the Southwest Valley Transit Corridor in "
                  "accordance with the National Environmental Policy Act, 23 CFR Part 771, and Section 4(f) of the "
                  "Department of Transportation Act. FTA is the lead federal agency; UTA, the project sponsor, "
                  "would seek funding through FTA's Capital Investment Grants program. The project would extend the "
                  "TRAX Red Line light rail about 9.8 miles from the Daybreak Parkway station southwest through "
                  "South Jordan, Riverton and Herriman to a terminus near Mountain View Corridor and 13400 South, "
                  "with seven new stations, four park-and-ride lots and a light rail vehicle storage facility. The "
                  "Draft EIS evaluates the No Build Alternative, a Bus Rapid Transit Alternative using dedicated "
                  "lanes on Bangerter Highway and local arterials, and the Light Rail Alternative, which UTA's "
                  "Board of Trustees adopted as the locally preferred alternative in 2018. It discloses effects on "
                  "land use, property acquisitions, traffic, noise and vibration, water resources, parklands and "
                  "environmental justice populations, and it describes the mitigation that FTA and UTA propose. A "
                  "45-day comment period begins with the publication of the Notice of Availability in the Federal "
                  "Register; public hearings will be held at Riverton City Hall and at Herriman High School."),
            _page("1.0 Purpose and Need",
                  "Since 2000, the southwest quadrant of the Salt Lake Valley has added residents faster than any "
                  "other part of Utah. The population of the five cities in the study area grew from 61,000 in 2000 "
                  "to 187,000 in 2017, and the Wasatch Front Regional Council projects 312,000 by 2050, along with "
                  "94,000 jobs, many of them in the Daybreak community and in the planned town centers along "
                  "Mountain View Corridor. The street network has not kept pace. Bangerter Highway and Redwood Road "
                  "operate at level of service E or F during peak hours, and only two arterials cross the Jordan "
                  "River between 10400 South and 14600 South. Transit service consists of three local bus routes "
                  "with 30-minute headways, and the Red Line, which ends at Daybreak Parkway, is reached by most "
                  "residents only by car. The purpose of the project is to provide a high-capacity, reliable "
                  "transit connection between the study area and the regional rail network, to support the land "
                  "use plans of the corridor cities, and to improve access to jobs for transit-dependent "
                  "households. Ridership was forecast with the regional travel demand model, recalibrated with "
                  "UTA's 2016 on-board survey, and the forecasts were checked against the experience of comparable "
                  "suburban light rail extensions in Denver, Colorado; Portland, Oregon; and Sacramento, "
                  "California. The Light Rail Alternative is forecast to carry 11,600 weekday riders in 2050, "
                  "compared with 6,200 for the Bus Rapid Transit Alternative."),
            _page("2.0 Alternatives Considered",
                  "The alternatives were developed through the Southwest Transit Study, an alternatives analysis "
                  "completed by UTA in 2017 with the participation of the corridor cities, the county and the "
                  "state department of transportation. Eleven initial concepts, including commuter rail on the "
                  "Union Pacific right-of-way and streetcar service on Redwood Road, were screened against the "
                  "purpose and need; the three carried forward are described here. The No Build Alternative "
                  "includes the existing and committed transportation network in the Wasatch Front Regional "
                  "Council's 2019-2050 Regional Transportation Plan. The Bus Rapid Transit Alternative would "
                  "operate 60-foot articulated buses every 10 minutes in peak periods, with 4.1 miles of dedicated "
                  "lanes and signal priority. The Light Rail Alternative would operate two-car trains every 15 "
                  "minutes, double-tracked throughout, with a grade-separated crossing of Bangerter Highway. UTA "
                  "would purchase 14 additional Siemens S70 light rail vehicles, assembled at the manufacturer's "
                  "plant in Sacramento, California, under an option in its existing vehicle contract. Capital costs "
                  "are estimated at $212 million for Bus Rapid Transit and $498 million for Light Rail in "
                  "year-of-expenditure dollars. FTA's Region 8 office in Denver oversees the environmental review "
                  "and will evaluate the project for a Capital Investment Grants rating after the Record of "
                  "Decision."),
        ], none | {
            "title": "Southwest Valley Transit Corridor Draft Environmental Impact Statement",
            "project_title": "Southwest Valley Transit Corridor", "lead_agency": "Federal Transit Administration",
            "cooperating_agencies": ["Federal Highway Administration"], "document_type": "Draft EIS",
            "process_type": "EIS", "year": "2019", "states": ["UT"]}),

        # A DOE-participation HVDC line across three states: converter stations "in Texas County, Oklahoma",
        # "Pope County, Arkansas" and "Shelby County, Tennessee", and the line crosses Oklahoma and Arkansas to
        # western Tennessee. Traps: Texas County is in Oklahoma; the applicant is headquartered in Houston,
        # Texas; the power would go to buyers in Alabama, Georgia and "the Carolinas"; a route through north
        # Texas and Louisiana to Mississippi was eliminated; the Mississippi River is crossed. Expected: AR, OK,
        # TN.
        Case("doe_transmission_line_three_states", [
            [("line", "DOE/EIS-0512", 11), ("gap", 40),
             ("line", "Final Environmental Impact Statement", 18, True),
             ("line", "for the Heartland Express Transmission Project", 18, True), ("gap", 30),
             ("line", "U.S. Department of Energy", 12), ("line", "Office of Electricity Delivery and Energy Reliability", 11),
             ("gap", 24), ("line", "Cooperating Agencies:", 10), ("line", "U.S. Army Corps of Engineers", 10),
             ("line", "U.S. Fish and Wildlife Service", 10), ("line", "U.S. Environmental Protection Agency", 10),
             ("gap", 30), ("line", "November 2015", 12)],
            _page("S.1 Introduction",
                  "This Final Environmental Impact Statement (EIS) evaluates the potential environmental impacts of "
                  "the U.S. Department of Energy's (DOE's) proposed participation in the Heartland Express "
                  "Transmission Project (Project) proposed by Bluestem Transmission LLC (the Applicant), a private "
                  "developer headquartered in Houston, Texas. Under Section 1222 of the Energy Policy Act of 2005, "
                  "DOE, acting through the Southwestern Power Administration (Southwestern), may participate with "
                  "other entities in designing, developing, constructing, operating, maintaining or owning new "
                  "electric power transmission facilities. The Project would consist of an overhead "
                  "plus-or-minus 600-kilovolt high-voltage direct current (HVDC) transmission line approximately "
                  "705 miles long; a converter station in Texas County, Oklahoma; an intermediate converter station "
                  "in Pope County, Arkansas; a converter station in Shelby County, Tennessee; and an AC collection "
                  "system of 345-kilovolt lines in the Oklahoma Panhandle. The line would cross Oklahoma from west "
                  "to east, traverse Arkansas, and cross the Mississippi River to end in western Tennessee, where "
                  "it would interconnect with the Tennessee Valley Authority (TVA) transmission system. The "
                  "Applicant would acquire rights-of-way 150 to 200 feet wide; if voluntary negotiations fail, "
                  "Southwestern could acquire property rights for the Project through its federal eminent domain "
                  "authority. DOE's decision whether to participate, and on what terms, will be announced in a "
                  "Record of Decision no sooner than 30 days after publication of this Final EIS.", 12),
            _page("S.2 Purpose and Need for Agency Action",
                  "DOE's purpose and need is to implement Section 1222 of the Energy Policy Act of 2005 by "
                  "participating in a project that meets the statute's criteria: that it accelerates transmission "
                  "that is needed, that it is not duplicative of transmission planned by others, and that it is in "
                  "the public interest. The Applicant's stated purpose is to deliver up to 4,000 megawatts of "
                  "electricity from wind energy facilities in the Oklahoma Panhandle region, where average wind "
                  "speeds at hub height exceed 8.5 meters per second, to load-serving entities and other customers "
                  "in the Mid-South and Southeast. The Applicant has identified TVA and utilities in Alabama, "
                  "Georgia and the Carolinas as potential purchasers, and the 500-megawatt intermediate converter "
                  "would allow power to be delivered into the Arkansas market. In assessing need, DOE reviewed the "
                  "Southwest Power Pool's Integrated Transmission Plan, the Eastern Interconnection Planning "
                  "Collaborative's 2012 scenario analyses, and the renewable portfolio requirements and voluntary "
                  "clean energy goals of utilities in the Southeast. DOE also considered that no existing or "
                  "planned line has the capacity to move large amounts of wind energy from the Southwest Power "
                  "Pool to the TVA region. The cooperating agencies have their own decisions to make: the U.S. Army "
                  "Corps of Engineers must decide whether to issue permits under Section 404 of the Clean Water Act "
                  "and Section 10 of the Rivers and Harbors Act for crossings of navigable waters, including the "
                  "Arkansas and Mississippi Rivers.", 12),
            _page("S.3 Alternatives",
                  "DOE analyzed the Applicant Proposed Project, DOE Alternatives and the No Action Alternative. To "
                  "allow comparison along a 705-mile line, the route was divided into seven regions: Region 1, the "
                  "Oklahoma Panhandle; Region 2, Central Great Plains; Region 3, Cross Timbers; Region 4, Ozark "
                  "Plateau and Arkansas River Valley; Region 5, Central Arkansas; Region 6, Arkansas Lowlands; and "
                  "Region 7, the Mississippi River crossing and western Tennessee. In each region DOE identified "
                  "alternative route segments, 1 to 40 miles long, that avoid concentrations of residences, "
                  "wetlands, conservation easements or cultural resources identified during scoping; the Applicant "
                  "Proposed Route and the alternative segments are shown on the maps in Appendix A. An alternative "
                  "route that would have run south from the Panhandle through north Texas and across Louisiana to "
                  "a terminus in Mississippi was considered but eliminated, because it would have been about 180 "
                  "miles longer and would not have reached the TVA interconnection point. Alternative transmission "
                  "technologies, including underground HVDC cable for the full length, were also eliminated as "
                  "technically and economically infeasible. Under the No Action Alternative, DOE would not "
                  "participate; the Applicant has stated that without DOE participation it could not assemble the "
                  "right-of-way in Arkansas, where the state Public Service Commission denied it public utility "
                  "status in 2011, and the Project would not be built as proposed. Public hearings on the Draft EIS "
                  "were held in 15 communities along the route, from Guymon to Memphis.", 12),
        ], none | {
            "title": "Final Environmental Impact Statement for the Heartland Express Transmission Project",
            "project_title": "Heartland Express Transmission Project", "lead_agency": "Department of Energy",
            "cooperating_agencies": ["U.S. Army Corps of Engineers", "U.S. Fish and Wildlife Service",
                                     "Environmental Protection Agency"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2015", "states": ["AR", "OK", "TN"],
            "eis_number": "DOE/EIS-0512"}),

        # An offshore wind farm (BOEM): the turbines stand on the federal Outer Continental Shelf, in no state,
        # but the lease area is "in the Massachusetts Wind Energy Area ... south of Martha's Vineyard and
        # Nantucket", and the export cables land in the Town of Barnstable with a substation in Hyannis; a
        # careful reader writes down Massachusetts (the state is named only in the area's name and in a state
        # office, the rest is to be known from the towns). Rhode Island appears as the site of an earlier wind
        # farm and as a state reviewing the project for its fishing fleets; Virginia as BOEM's office; Georgia
        # and Florida in the right whale's range; New Jersey as where foundations are fabricated. Judged not
        # project states. Expected: MA only.
        Case("boem_offshore_wind_landfall", [
            [("line", "U.S. Department of the Interior", 10), ("line", "Bureau of Ocean Energy Management", 14, True),
             ("line", "Office of Renewable Energy Programs", 10), ("gap", 50),
             ("line", "Bayberry Offshore Wind Energy Project", 22, True),
             ("line", "Final Environmental Impact Statement", 18, True), ("gap", 30),
             ("line", "Cooperating Agencies:", 10), ("line", "National Marine Fisheries Service", 10),
             ("line", "U.S. Army Corps of Engineers", 10), ("line", "U.S. Coast Guard", 10),
             ("line", "U.S. Environmental Protection Agency", 10), ("gap", 30), ("line", "March 2021", 12)],
            _page("Abstract",
                  "This Final Environmental Impact Statement (Final EIS) assesses the reasonably foreseeable impacts "
                  "on physical, biological, socioeconomic and cultural resources that could result from the "
                  "construction, operations and maintenance, and conceptual decommissioning of the Bayberry "
                  "Offshore Wind Energy Project (Project), as described in the Construction and Operations Plan "
                  "(COP) submitted by Bayberry Wind LLC (the Applicant). The Applicant proposes to install up to 84 "
                  "wind turbine generators of 8 to 14 megawatts each, and up to two electrical service platforms, "
                  "in the northern portion of commercial Lease Area OCS-A 0534, which lies on the Outer Continental "
                  "Shelf in the Massachusetts Wind Energy Area, approximately 14 miles south of Martha's Vineyard "
                  "and 15 miles southwest of Nantucket. Two 220-kilovolt export cables would be buried along a "
                  "corridor through Muskeget Channel and Nantucket Sound to a landfall at Covell's Beach in the "
                  "Town of Barnstable, and onshore cables would follow public roadways about 5 miles to a new "
                  "substation in the village of Hyannis. BOEM's proposed action is to approve, approve with "
                  "modifications, or disapprove the COP under 30 CFR Part 585. The Final EIS evaluates the Proposed "
                  "Action and five action alternatives, including alternatives that would exclude or relocate "
                  "turbines to reduce impacts on commercial fishing and on historic properties, and it describes the "
                  "mitigation and monitoring measures that BOEM may require as conditions of approval."),
            _page("1.1 Background",
                  "BOEM's renewable energy program began with the 2009 regulations at 30 CFR Part 585 and the first "
                  "competitive lease sales under the Smart from the Start initiative. The Wind Energy Area was "
                  "identified after a multi-year process with the Intergovernmental Renewable Energy Task Force, "
                  "and Lease Area OCS-A 0534 was issued in 2015 after a competitive auction. The Project follows the "
                  "five-turbine Block Island Wind Farm in state waters off Rhode Island, which began operating in "
                  "2016 as the nation's first commercial offshore wind facility, and it would be among the first "
                  "utility-scale projects on the Outer Continental Shelf. The Project would supply electricity "
                  "under long-term contracts selected in the 2018 solicitation held by the electric distribution "
                  "companies under Section 83C of the Green Communities Act. BOEM prepared this EIS with the "
                  "assistance of a third-party contractor and with technical information from the Northeast "
                  "Fisheries Science Center, NOAA's National Centers for Environmental Information and BOEM's own "
                  "Environmental Studies Program; BOEM's Office of Renewable Energy Programs in Sterling, Virginia, "
                  "directed the work. The federal consistency review under the Coastal Zone Management Act is being "
                  "conducted by the Massachusetts Office of Coastal Zone Management, and the Rhode Island Coastal "
                  "Resources Management Council has also reviewed the Project because the Lease Area lies within "
                  "the Council's geographic location description, which covers offshore grounds fished by the "
                  "state's commercial fleet."),
            _page("3.1 Affected Environment",
                  "The Lease Area is in water depths of 121 to 164 feet on the gently sloping shelf south of the "
                  "islands, where the seabed is predominantly sand and gravel with scattered boulders. Fourteen "
                  "species of marine mammals occur regularly in the area. The North Atlantic right whale, listed as "
                  "endangered, ranges from calving grounds off Georgia and northeastern Florida to feeding grounds "
                  "in the Gulf of Maine and the Gulf of St. Lawrence, and since 2010 it has been observed in the "
                  "waters south of Martha's Vineyard and Nantucket in every month of the year; BOEM would prohibit "
                  "pile driving from January 1 through April 30. Commercial fisheries in and near the Lease Area "
                  "target longfin squid, Atlantic surfclam, silver hake, monkfish and summer flounder. Vessel "
                  "monitoring data from 2014 through 2019 show that most revenue from the area was landed by "
                  "vessels homeported in New Bedford, Point Judith, Stonington and Montauk, so that fleets from "
                  "several states share the fishing grounds. Construction staging would use the New Bedford Marine "
                  "Commerce Terminal; monopiles and transition pieces would be fabricated in Europe and at a "
                  "facility in Paulsboro, New Jersey, and carried to the Lease Area by barge. Onshore, the cable "
                  "route passes through developed residential and commercial land, and the substation site is a "
                  "previously disturbed parcel zoned for industrial use."),
        ], none | {
            "title": "Bayberry Offshore Wind Energy Project Final Environmental Impact Statement",
            "project_title": "Bayberry Offshore Wind Energy Project",
            "lead_agency": "Bureau of Ocean Energy Management",
            "cooperating_agencies": ["National Marine Fisheries Service", "U.S. Army Corps of Engineers",
                                     "U.S. Coast Guard", "Environmental Protection Agency"],
            "document_type": "Final EIS", "process_type": "EIS", "year": "2021", "states": ["MA"]}),

        # A solar lease on tribal trust land (BIA): the Reservation is "in northern Clark County, about 30 miles
        # northeast of Las Vegas" and the vegetation is "typical of the low desert of southern Nevada", with the
        # Service's Southern Nevada office consulted; the state is never given in a sentence of its own. Other
        # states: BIA's regional office in Phoenix, Arizona (where comments go), power sold to Los Angeles,
        # California, the Southern Paiute homeland across Utah, Arizona and California, and the desert tortoise's
        # range in four states. Expected: NV only.
        Case("bia_tribal_solar_lease", [
            [("line", "U.S. Department of the Interior", 10), ("line", "Bureau of Indian Affairs", 15, True),
             ("gap", 50), ("line", "Draft Environmental Impact Statement", 18, True),
             ("line", "Arrow Canyon Solar Project", 22, True), ("gap", 30),
             ("line", "Lead Agency: Bureau of Indian Affairs", 10),
             ("line", "Cooperating Agencies: Moapa Band of Paiute Indians;", 10),
             ("line", "Bureau of Land Management; U.S. Environmental Protection Agency", 10), ("gap", 20),
             ("line", "Comments due: September 9, 2019", 10), ("gap", 20), ("line", "July 2019", 12)],
            _page("Abstract",
                  "The Moapa Band of Paiute Indians (Tribe) has entered into a long-term solar energy ground lease "
                  "with Arrow Canyon Solar, LLC (Applicant) for the construction, operation, maintenance and "
                  "eventual decommissioning of a photovoltaic solar facility of up to 200 megawatts (MW) "
                  "alternating current, with up to 75 MW of battery storage, on approximately 1,900 acres of tribal "
                  "trust land. The Bureau of Indian Affairs (BIA) must decide whether to approve the lease and "
                  "associated rights-of-way on trust land under 25 U.S.C. 415 and the regulations at 25 CFR Part "
                  "162. The Bureau of Land Management (BLM) must decide whether to grant a right-of-way across "
                  "public land for a portion of the 230-kilovolt generation-tie line that would connect the "
                  "facility to the regional grid. This Draft EIS analyzes the Proposed Action, a reduced-footprint "
                  "alternative that would avoid two ephemeral washes and a cultural resource site, and the No "
                  "Action Alternative. The analysis addresses air quality, water resources, biological resources "
                  "including the desert tortoise, cultural resources and traditional cultural properties, visual "
                  "resources, socioeconomic conditions and environmental justice. Written comments on this Draft "
                  "EIS should be sent by September 9, 2019, to Maria Quintana, Regional Environmental Protection "
                  "Officer, BIA Western Regional Office, 2600 North Central Avenue, 4th Floor Mailroom, Phoenix, "
                  "Arizona 85004, or by email. A public meeting will be held at the Moapa Tribal Administration "
                  "Building during the comment period."),
            _page("1.2 Background",
                  "The Moapa River Indian Reservation was established by executive order in 1873 and reduced in "
                  "1875 to 1,000 acres along the Muddy River; in 1980 Congress restored about 70,000 acres of the "
                  "Mojave Desert to the Tribe, and the Reservation now comprises some 71,954 acres in northern "
                  "Clark County, about 30 miles northeast of Las Vegas. Interstate 15 and a Union Pacific rail line "
                  "cross the Reservation, as do several major transmission lines, and the Reid Gardner Generating "
                  "Station, a coal-fired plant that operated at the Reservation boundary from 1965 until 2017, was "
                  "long a source of health concerns for tribal members. The Tribe's economic development plan "
                  "identifies utility-scale solar generation as a way to use the Reservation's land and "
                  "transmission access to provide revenue and employment. The Tribe's first such facility, the "
                  "250-MW Moapa Southern Paiute Solar Project, has delivered power since 2016 to the Los Angeles "
                  "Department of Water and Power in California under a 25-year power purchase agreement, and a "
                  "2016 BIA Record of Decision approved a second project of up to 100 MW. The Tribe is one of "
                  "several Southern Paiute bands whose traditional homeland extended across the deserts and "
                  "plateaus of what are now southern Utah, northern Arizona and southeastern California, and "
                  "places throughout that homeland remain important to its members."),
            _page("3.0 Affected Environment",
                  "The project site lies on a gently sloping alluvial fan at elevations of 1,900 to 2,300 feet, "
                  "between the Arrow Canyon Range and the Interstate 15 corridor. The climate is arid; the nearest "
                  "long-term station records an average of 4.5 inches of precipitation a year and summer highs "
                  "above 105 degrees Fahrenheit. Vegetation is creosote bush-white bursage scrub typical of the low "
                  "desert of southern Nevada, with scattered yucca and cholla and small stands of mesquite along the "
                  "washes. Protocol surveys in the spring of 2018 found 11 adult desert tortoises and 34 burrows "
                  "within the survey area. The Mojave population of the desert tortoise, listed as threatened under "
                  "the Endangered Species Act, occurs north and west of the Colorado River in parts of four states, "
                  "and the site lies within the Northeastern Mojave Recovery Unit identified in the U.S. Fish and "
                  "Wildlife Service's 2011 revised recovery plan; BIA has requested formal consultation with the "
                  "Service's Southern Nevada Fish and Wildlife Office. Groundwater in the area is part of the Lower "
                  "White River Flow System, which is connected to the springs that feed the Muddy River and support "
                  "the endangered Moapa dace. Class III cultural resource inventories recorded 23 sites, including "
                  "rock shelters and lithic scatters, and the Tribe has identified the Arrow Canyon Range as a "
                  "traditional cultural property."),
        ], none | {
            "title": "Draft Environmental Impact Statement Arrow Canyon Solar Project",
            "project_title": "Arrow Canyon Solar Project", "lead_agency": "Bureau of Indian Affairs",
            "cooperating_agencies": ["Moapa Band of Paiute Indians", "Bureau of Land Management",
                                     "Environmental Protection Agency"],
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2019", "states": ["NV"]}),

        # An Army stationing EIS whose place comes only on page 4 ("in El Paso, Pueblo and Fremont Counties,
        # Colorado"); pages 2 and 3 speak only of "Fort Carson" and name other states: the Army Environmental
        # Command's address in Texas, installations considered or eliminated (Fort Riley, Kansas; Fort Stewart,
        # Georgia; Fort Bliss, Texas) and the posts units would come from (Fort Hood, Texas; Fort Campbell,
        # Kentucky). El Paso County is Colorado's, not Texas's. Expected: CO only.
        Case("army_stationing_place_on_page_four", [
            [("line", "Department of the Army", 14, True), ("line", "Headquarters, Fort Carson", 11),
             ("line", "Directorate of Public Works, Environmental Division", 10), ("gap", 60),
             ("line", "Final Environmental Impact Statement", 18, True),
             ("line", "for the Stationing and Training of", 18, True),
             ("line", "a Combat Aviation Brigade at Fort Carson", 18, True), ("gap", 50), ("line", "May 2012", 12)],
            _page("Abstract",
                  "This Final Environmental Impact Statement (FEIS) analyzes the potential environmental and "
                  "socioeconomic effects of stationing a Combat Aviation Brigade (CAB) at Fort Carson and of "
                  "conducting the brigade's aviation training at Fort Carson and the Pinon Canyon Maneuver Site "
                  "(PCMS). The CAB would comprise approximately 2,700 Soldiers and 113 helicopters, including AH-64 "
                  "Apache, UH-60 Black Hawk and CH-47 Chinook aircraft, together with about 2,950 Family members. "
                  "The Proposed Action includes construction of hangars, maintenance facilities, barracks, a new "
                  "runway and aircraft parking at Butts Army Airfield, and the use of existing ranges, landing "
                  "zones and airspace for training. Alternative 1 would station the CAB and construct all "
                  "facilities by fiscal year 2017; Alternative 2 would do the same and also expand high-altitude "
                  "training to additional landing zones; under the No Action Alternative, the CAB would not be "
                  "stationed at Fort Carson. The FEIS identifies significant adverse impacts to soils at PCMS and "
                  "to noise-sensitive areas near the airfield, together with measures to mitigate them, and less "
                  "than significant effects on most other resources. The Army will sign a Record of Decision no "
                  "sooner than 30 days after the Environmental Protection Agency publishes the notice of "
                  "availability of this FEIS. Questions may be directed to the U.S. Army Environmental Command, "
                  "ATTN: IMPA-AE, 2450 Connell Road, Building 2264, Joint Base San Antonio-Fort Sam Houston, Texas "
                  "78234-7664."),
            _page("1.2 Purpose of and Need for the Proposed Action",
                  "The purpose of the Proposed Action is to station and train a CAB to support the Army's modular "
                  "force structure and to align aviation assets with the ground combat brigades they support. The "
                  "2007 Grow the Army initiative and the 2010 Quadrennial Defense Review directed that each active "
                  "Army division have an organic CAB; the 4th Infantry Division, headquartered at Fort Carson since "
                  "2009, has been supported by aviation units at distant installations and by National Guard units, "
                  "which limits combined-arms training. The Army's 2011 programmatic stationing analysis evaluated "
                  "installations that could accommodate a CAB against criteria for training land, airspace, ranges, "
                  "existing facilities and quality of life. Fort Riley, Kansas, and Fort Stewart, Georgia, already "
                  "host CABs and lack capacity for another, and Fort Bliss, Texas, was considered but eliminated "
                  "because its airspace is heavily used by Air Force and Army air defense units and its aviation "
                  "facilities would support only a small task force. Fort Carson was identified as the preferred "
                  "location because it hosts the division, provides high-altitude and mountainous terrain valuable "
                  "for pre-deployment training, and has room for expansion at Butts Army Airfield. Some personnel "
                  "and aircraft would transfer from aviation units now at Fort Hood, Texas, and Fort Campbell, "
                  "Kentucky, and others would be newly activated, with Soldiers arriving over an 18-month period "
                  "beginning in 2013."),
            _page("3.1 Location and Setting",
                  "Fort Carson occupies approximately 137,000 acres in El Paso, Pueblo and Fremont Counties, "
                  "Colorado, immediately south of the City of Colorado Springs. The installation's northern "
                  "boundary adjoins residential neighborhoods of Colorado Springs and the City of Fountain, and its "
                  "cantonment area, including Butts Army Airfield, lies in the northern third of the post. The "
                  "terrain rises from about 5,100 feet on the plains in the southeast to more than 7,000 feet in "
                  "the foothills of the Front Range along the western boundary. PCMS, about 150 miles southeast by "
                  "road, occupies about 235,000 acres of shortgrass prairie, juniper woodland and canyon country in "
                  "Las Animas County, north of the Purgatoire River, and has been used for maneuver training since "
                  "1985. The regional economy is dominated by the military: Fort Carson, Peterson Air Force Base, "
                  "Schriever Air Force Base and the U.S. Air Force Academy together employ more than 40,000 "
                  "military and civilian personnel in the Colorado Springs metropolitan area. The CAB's arrival "
                  "would add about 5,650 people, including Family members, to a region of about 650,000 residents, "
                  "increasing demand on schools in Fountain-Fort Carson School District 8 and on rental housing on "
                  "the south side of the city."),
        ], none | {
            "title": "Final Environmental Impact Statement for the Stationing and Training of a Combat Aviation "
                     "Brigade at Fort Carson",
            "project_title": "Stationing and Training of a Combat Aviation Brigade at Fort Carson",
            "lead_agency": "Department of the Army", "document_type": "Final EIS", "process_type": "EIS",
            "year": "2012", "states": ["CO"]}),

        # A national FAA programmatic EIS on ending leaded aviation gasoline: no project place. States appear as
        # where the fuel is blended (Texas and Louisiana), a county's earlier ban (Santa Clara County,
        # California), the FAA test center (Atlantic City, New Jersey) and four scoping meetings (Georgia,
        # Wisconsin, Colorado, California). Expected: None.
        Case("faa_unleaded_avgas_national", [
            [("line", "U.S. Department of Transportation", 10), ("line", "Federal Aviation Administration", 15, True),
             ("line", "Office of Environment and Energy", 10), ("gap", 60),
             ("line", "Transition to Unleaded Aviation Gasoline", 20, True),
             ("line", "Draft Programmatic Environmental Impact Statement", 16, True), ("gap", 50),
             ("line", "March 2024", 12)],
            _page("Abstract",
                  "The Federal Aviation Administration (FAA) has prepared this Draft Programmatic Environmental "
                  "Impact Statement (PEIS) to evaluate, at a national scale, the environmental consequences of "
                  "actions the FAA may take to eliminate the use of leaded aviation gasoline by piston-engine "
                  "aircraft. About 170,000 piston-engine aircraft are registered in the United States, and most of "
                  "them are certificated to use 100 octane low lead (100LL) fuel, which contains tetraethyl lead to "
                  "prevent engine knock. In October 2023 the Environmental Protection Agency found, under Section "
                  "231 of the Clean Air Act, that lead emissions from these aircraft cause or contribute to air "
                  "pollution that may reasonably be anticipated to endanger public health and welfare, a finding "
                  "that obliges the EPA and then the FAA to adopt emission and fuel standards. The FAA's proposed "
                  "action, developed under the Eliminate Aviation Gasoline Lead Emissions (EAGLE) initiative, is to "
                  "authorize the use of one or more unleaded fuels across the existing fleet, to support the "
                  "production and distribution of those fuels, and to end the sale of 100LL at airports that "
                  "receive federal grants no later than the end of 2030. The PEIS analyzes effects on air quality, "
                  "human health, noise, hazardous materials, socioeconomic conditions and environmental justice. "
                  "Actions at individual airports would be reviewed later under the FAA's NEPA procedures in Order "
                  "1050.1F and may tier from this PEIS.", 12),
            _page("Chapter 1 - Purpose and Need",
                  "Piston-engine aircraft are now the largest single source of lead emissions to the air in the "
                  "United States, accounting for about 70 percent of the national inventory, and the EPA's "
                  "monitoring studies at 17 general aviation airports, together with modeling of some 13,000 "
                  "airports, found that concentrations near run-up areas can approach or exceed the National "
                  "Ambient Air Quality Standard for lead. Tetraethyl lead is produced today at a single plant, in "
                  "Ellesmere Port, England, and 100LL is blended at only a few refineries, most of them on the Gulf "
                  "Coast of Texas and Louisiana, from which it moves by truck and rail to about 3,000 airport fuel "
                  "sellers; that concentrated supply chain is itself a risk to general aviation. Several airport "
                  "sponsors have acted ahead of federal rules. In January 2022, Santa Clara County, California, "
                  "stopped selling 100LL at Reid-Hillview and San Martin airports, and the FAA opened an "
                  "investigation of the county's compliance with its grant assurances. The purpose of the proposed "
                  "action is to eliminate lead emissions from aviation gasoline without adversely affecting the "
                  "safety of the existing fleet, to carry out the direction of Congress in the FAA Reauthorization "
                  "Act of 2018, and to respond to the EPA's endangerment finding. Fuel and engine testing that "
                  "supports the analysis was conducted under the Piston Aviation Fuels Initiative at the FAA "
                  "William J. Hughes Technical Center in Atlantic City, New Jersey, and at manufacturers' test "
                  "cells.", 12),
            _page("Chapter 2 - Scoping and Alternatives",
                  "The FAA published a Notice of Intent to prepare the PEIS in the Federal Register on June 2, 2023, "
                  "and accepted scoping comments for 60 days. In addition to two virtual meetings, the FAA held "
                  "in-person scoping meetings in Atlanta, Georgia; Oshkosh, Wisconsin, during the Experimental "
                  "Aircraft Association's AirVenture fly-in; Denver, Colorado; and San Jose, California, near the "
                  "first airports to end sales of 100LL. The FAA received 1,842 comments from pilots, aircraft "
                  "owners, fuel producers, airport sponsors, state aviation agencies, public health organizations "
                  "and residents living near airports. The comments most often concerned engine compatibility, "
                  "fuel cost, the pace of the transition and the exposure of children to lead near airports. In "
                  "response, the PEIS analyzes three alternatives. Under the No Action Alternative, the FAA would "
                  "continue to approve unleaded fuels one at a time through supplemental type certificates, and "
                  "100LL would remain available indefinitely. Under Alternative A, the proposed action, the FAA "
                  "would authorize qualified unleaded fuels fleet-wide and end 100LL sales at federally obligated "
                  "airports by the end of 2030. Under Alternative B, the FAA would set the same end date but rely "
                  "on a single high-octane unleaded replacement fuel selected through the EAGLE program's testing. "
                  "The FAA has not identified a preferred alternative in this Draft PEIS and invites comment on "
                  "each.", 12),
        ], none | {
            "title": "Transition to Unleaded Aviation Gasoline Draft Programmatic Environmental Impact Statement",
            "project_title": "Transition to Unleaded Aviation Gasoline",
            "lead_agency": "Federal Aviation Administration", "document_type": "Programmatic Draft EIS",
            "process_type": "EIS", "year": "2024"}),

        # A national NRCS programmatic EIS for a Farm Bill program: no project place. States appear as the
        # watersheds of the first sign-ups in 2004 (Iowa, Missouri, Georgia, Washington: past projects), data
        # partners (Iowa State University; Texas A&M AgriLife Research at Temple, Texas) and NRCS technical
        # centers (North Carolina, Texas, Oregon, Nebraska). Expected: None.
        Case("nrcs_farm_program_national", [
            [("line", "United States Department of Agriculture", 10),
             ("line", "Natural Resources Conservation Service", 15, True), ("gap", 60),
             ("line", "Conservation Stewardship Program", 22, True),
             ("line", "Final Programmatic Environmental Impact Statement", 16, True), ("gap", 40),
             ("line", "Responsible Official: Chief, Natural Resources Conservation Service", 10), ("gap", 20),
             ("line", "January 2020", 12)],
            _page("Summary",
                  "The Natural Resources Conservation Service (NRCS) has prepared this Programmatic Environmental "
                  "Impact Statement (PEIS) to analyze the environmental effects of implementing the Conservation "
                  "Stewardship Program (CSP) as amended by the Agriculture Improvement Act of 2018 (the 2018 Farm "
                  "Bill). CSP is a voluntary program that helps agricultural producers maintain and improve their "
                  "existing conservation systems and adopt additional conservation activities to address priority "
                  "resource concerns. Through five-year contracts, NRCS provides annual payments for installing "
                  "and adopting conservation enhancements and for maintaining existing activities, and it may renew "
                  "contracts for additional five-year terms. Eligible land includes cropland, grassland, improved "
                  "pastureland, rangeland, nonindustrial private forest land and agricultural land under the "
                  "jurisdiction of an Indian Tribe. The 2018 Farm Bill changed the program from one managed by "
                  "enrolled acres to one managed by dollars, set aside funds for grassland conservation, and "
                  "created a supplemental payment for resource-conserving crop rotations. Because CSP operates as "
                  "a program rather than as a set of site-specific projects, this PEIS evaluates the effects of "
                  "the program as a whole, and of the program changes, on soil, water, air, plants, animals, "
                  "energy and human resources. It compares a No Action Alternative, which would continue CSP as "
                  "administered before the 2018 Farm Bill to the extent the statute allows, with the Proposed "
                  "Action, which implements the statutory changes through the interim rule and the policies "
                  "described in Chapter 2. Site-specific effects will be addressed through the NRCS conservation "
                  "planning process and environmental evaluation (Form NRCS-CPA-52) when contracts are developed."),
            _page("1.2 Background",
                  "CSP grew out of the Conservation Security Program, authorized by the Farm Security and Rural "
                  "Investment Act of 2002. NRCS first offered that program in 2004 in 18 priority watersheds "
                  "selected to represent the diversity of the nation's agriculture, among them the East "
                  "Nishnabotna River watershed in Iowa, the Little River Ditches watershed in Missouri, the Upper "
                  "Chattahoochee River watershed in Georgia and the Lower Yakima River watershed in Washington. "
                  "Lessons from those sign-ups, particularly the cost of tiered payments and the difficulty of "
                  "enrolling producers in watersheds offered only once every eight years, shaped the Conservation "
                  "Stewardship Program that replaced it under the Food, Conservation, and Energy Act of 2008 (16 "
                  "U.S.C. 3838d et seq.). Between 2009 and 2018, NRCS enrolled more than 70 million acres in CSP "
                  "contracts. The Agricultural Act of 2014 continued the program with modifications, and NRCS "
                  "completed an environmental assessment of those changes in 2014. The 2018 Farm Bill made more "
                  "substantial changes, including the shift from acreage to dollar limits and a new emphasis on "
                  "grazing land, and NRCS determined that a programmatic EIS would best inform the public and "
                  "decisionmakers about their cumulative effects. The PEIS also responds to recommendations made "
                  "by the Government Accountability Office in 2017 about the program's monitoring of contract "
                  "compliance and its measurement of environmental outcomes."),
            _page("3.1 Methods and Data Sources",
                  "The PEIS relies primarily on national data sets maintained or sponsored by NRCS. Estimates of "
                  "land use, erosion, and the condition of cropland, pastureland and rangeland come from the "
                  "National Resources Inventory, a statistical survey of conditions and trends on non-federal land "
                  "that NRCS conducts in cooperation with the Center for Survey Statistics and Methodology at Iowa "
                  "State University. Estimates of the effects of conservation practices on sediment, nitrogen and "
                  "phosphorus losses come from the Conservation Effects Assessment Project (CEAP), which couples "
                  "farmer surveys with the APEX field-scale model and the SWAT watershed model developed by the "
                  "Agricultural Research Service and Texas A&M AgriLife Research at Temple, Texas. Program data on "
                  "contracts, practices and payments were drawn from the NRCS ProTracts and Conservation "
                  "Assessment and Ranking Tool databases for fiscal years 2014 through 2019. Technical reviews of "
                  "the analysis were provided by the NRCS National Technical Centers in Greensboro, North "
                  "Carolina; Fort Worth, Texas; and Portland, Oregon; by the National Soil Survey Center in "
                  "Lincoln, Nebraska; and by the Environmental Protection Agency. Where national data did not "
                  "support a quantitative estimate, the PEIS relies on the scientific literature and on the "
                  "professional judgment of NRCS specialists. Effects are described qualitatively or "
                  "quantitatively for each resource and are summarized by resource concern in Table 3-1."),
        ], none | {
            "title": "Conservation Stewardship Program Final Programmatic Environmental Impact Statement",
            "project_title": "Conservation Stewardship Program",
            "lead_agency": "Natural Resources Conservation Service", "document_type": "Programmatic Final EIS",
            "process_type": "EIS", "year": "2020"}),

        # A nationwide Forest Service supplemental EIS: no project place (all national forests and grasslands).
        # States appear in legal citations (the District of Montana, "D. Mont."; Marsh v. Oregon Natural
        # Resources Council), in data sources (the USGS lab in Columbia, Missouri; the National Interagency Fire
        # Center in Boise, Idaho) and in the Columbia River Basin (not the District of Columbia). Expected: None.
        Case("forest_service_supplemental_legal_citations", [
            [("line", "United States Department of Agriculture", 10), ("line", "Forest Service", 16, True),
             ("line", "Fire and Aviation Management", 10), ("gap", 60),
             ("line", "Nationwide Aerial Application of Fire Retardant", 19, True),
             ("line", "on National Forest System Land", 19, True), ("gap", 10),
             ("line", "Final Supplemental Environmental Impact Statement", 15, True), ("gap", 50),
             ("line", "February 2023", 12)],
            _page("Abstract",
                  "The Forest Service proposes to continue the aerial application of fire retardant to fight "
                  "wildland fires on National Forest System lands, under updated guidelines and with mitigation "
                  "intended to reduce adverse effects on threatened, endangered and sensitive species and on water "
                  "quality. This Final Supplemental Environmental Impact Statement (SEIS) supplements the 2011 "
                  "Final EIS for the Nationwide Aerial Application of Fire Retardant on National Forest System "
                  "Land, on which the Record of Decision signed in December 2011 was based. The supplement was "
                  "prepared because new information has become available since 2011: ten years of data on the "
                  "frequency and consequences of retardant misapplications into aquatic habitat and mapped "
                  "avoidance areas, new species listings and critical habitat designations, new retardant "
                  "formulations qualified for use, and the results of toxicity studies on several of those "
                  "formulations. The SEIS analyzes the No Action Alternative, which would continue the 2011 "
                  "guidelines and the existing avoidance area mapping, and the Proposed Action, which would update "
                  "the avoidance area maps on each national forest and grassland, add pilot reporting and "
                  "monitoring requirements, and clarify the exceptions that allow retardant to be used in "
                  "avoidance areas when human life or public safety is threatened. Retardant would continue to be "
                  "applied only as part of fire suppression, and its use would remain subject to the availability "
                  "of aircraft and the judgment of incident commanders."),
            _page("1.2 Background",
                  "Aerial application of fire retardant has been part of Forest Service fire suppression since the "
                  "1950s, and the agency uses an average of about 30 million gallons a year. In 2003, Forest "
                  "Service Employees for Environmental Ethics sued the agency for failing to prepare an "
                  "environmental analysis of the retardant program, and in 2005 the U.S. District Court for the "
                  "District of Montana ordered it to do so. The resulting 2007 environmental assessment was "
                  "challenged, and in Forest Service Employees for Environmental Ethics v. United States Forest "
                  "Service, 726 F. Supp. 2d 1195 (D. Mont. 2010), the court held that the agency had not complied "
                  "with NEPA or the Endangered Species Act and ordered the preparation of an EIS, which was "
                  "completed in 2011. Under 40 CFR 1502.9 and the Forest Service NEPA regulations at 36 CFR Part "
                  "220, an agency must supplement an EIS when there are significant new circumstances or "
                  "information relevant to environmental concerns and bearing on the proposed action or its "
                  "impacts. The Supreme Court explained that standard in Marsh v. Oregon Natural Resources Council, "
                  "490 U.S. 360 (1989), holding that an agency must take a hard look at new information to "
                  "determine whether it is significant. The Forest Service's 2019 review of misapplication reports "
                  "concluded that the new information met that standard for some species, and the Chief directed "
                  "the preparation of this SEIS. The U.S. Fish and Wildlife Service and the National Marine "
                  "Fisheries Service issued programmatic biological opinions in 2011, and consultation was "
                  "reinitiated in 2020."),
            _page("3.1 Aquatic Resources",
                  "Retardant that enters water can be toxic to fish and aquatic invertebrates, chiefly because of "
                  "the ammonia released as the ammonium phosphate salts in most formulations dissolve. Toxicity "
                  "tests of the qualified products were conducted for the Forest Service by the U.S. Geological "
                  "Survey's Columbia Environmental Research Center in Columbia, Missouri, using rainbow trout, "
                  "fathead minnows and the amphipod Hyalella azteca, and the results are summarized in Appendix D. "
                  "From 2012 through 2019, 464 misapplications of retardant into mapped avoidance areas were "
                  "reported, of which 117 reached waterways; documented fish kills were rare and were confined to "
                  "small streams in which a full load was dropped directly into the channel. The analysis uses the "
                  "avoidance area maps and the range maps of 123 aquatic species listed under the Endangered Species "
                  "Act or designated sensitive by regional foresters, from Pacific salmon and steelhead in the "
                  "Columbia River Basin to freshwater mussels in the streams of the southern Appalachians. Because "
                  "the location of future fires cannot be predicted, effects are estimated as the probability that "
                  "retardant would reach the habitat of each species, based on the historical pattern of fire "
                  "suppression on each national forest; the analysis therefore applies to all 154 national forests "
                  "and 20 national grasslands. Data on the use of retardant by forest were provided by Fire and "
                  "Aviation Management staff at the National Interagency Fire Center in Boise, Idaho."),
        ], none | {
            "title": "Nationwide Aerial Application of Fire Retardant on National Forest System Land Final "
                     "Supplemental Environmental Impact Statement",
            "project_title": "Nationwide Aerial Application of Fire Retardant on National Forest System Land",
            "lead_agency": "Forest Service", "document_type": "Supplemental Final EIS", "process_type": "EIS",
            "year": "2023"}),

        # A national FWS programmatic EIS on eagle permit rules: no project place (the permit framework across
        # both species' ranges). States appear in the species' ranges (Alaska, Florida, Wyoming, Montana, Nevada,
        # Utah), data sources (the Bird Banding Laboratory in Laurel, Maryland; a consultant in Cheyenne,
        # Wyoming), an earlier permit (Solano County, California), the "Mississippi Flyway" and four scoping
        # meetings. Expected: None.
        Case("fws_eagle_rule_species_range", [
            [("line", "U.S. Fish and Wildlife Service", 15, True), ("line", "Division of Migratory Bird Management", 10),
             ("gap", 60), ("line", "Draft Programmatic Environmental Impact Statement", 17, True),
             ("line", "for the Eagle Rule Revision", 20, True), ("gap", 40),
             ("line", "Lead Agency: U.S. Fish and Wildlife Service", 10), ("gap", 20), ("line", "May 2016", 12)],
            _page("Executive Summary",
                  "The U.S. Fish and Wildlife Service (Service) proposes to revise the regulations at 50 CFR 22.26 "
                  "and 22.27 that authorize permits for the nonpurposeful (incidental) take of bald eagles and "
                  "golden eagles and for the removal of eagle nests under the Bald and Golden Eagle Protection Act "
                  "(Eagle Act), 16 U.S.C. 668-668d. The regulations, first adopted in 2009, require that any take "
                  "authorized be compatible with the preservation of each species, which the Service defines as "
                  "consistent with the goal of stable or increasing breeding populations. Few permits have been "
                  "issued under the 2009 rule, and project proponents, conservation organizations and tribes have "
                  "told the Service that the permit process is slow, costly and unpredictable, while the take of "
                  "eagles by wind turbines, electric lines, vehicles and other causes continues largely "
                  "unpermitted. This Draft Programmatic EIS (PEIS) evaluates alternative approaches to the permit "
                  "program, including new eagle management units, revised limits on take within each unit and "
                  "within local area populations, changes to the maximum permit tenure, compensatory mitigation "
                  "standards and monitoring requirements. It is programmatic: it addresses the effects of the "
                  "permit framework across the range of both species in the United States, and individual permit "
                  "decisions will be supported by site-specific analyses that may tier from it. The PEIS updates "
                  "the status of both species using population estimates prepared by the Division of Migratory "
                  "Bird Management, with survey data from the Western Golden Eagle Survey and band recovery data "
                  "from the U.S. Geological Survey's Bird Banding Laboratory in Laurel, Maryland.", 14),
            _page("1.3 Status of the Species",
                  "The bald eagle was removed from the list of threatened and endangered species in 2007, after its "
                  "breeding population in the lower 48 states recovered from fewer than 500 pairs in 1963 to more "
                  "than 9,700 pairs. It breeds from Alaska and Canada south to Florida and Baja California, with "
                  "the highest densities in Alaska, around the Chesapeake Bay, in the Great Lakes states, along the "
                  "Pacific Northwest coast and in peninsular Florida. The Service now estimates a population of "
                  "about 143,000 bald eagles in the coterminous United States, and the species is increasing in "
                  "most regions. The golden eagle, in contrast, has never been listed. It is a bird of open "
                  "country, and in the United States it occurs mainly in the West, with the largest breeding "
                  "populations in Wyoming, Montana, Nevada, Utah and Alaska and a small eastern population that "
                  "winters in the central Appalachians. Analyses of the Western Golden Eagle Survey by Western "
                  "EcoSystems Technology, Inc., of Cheyenne, Wyoming, under contract to the Service, indicate a "
                  "population of about 40,000 birds in the western states that is stable but cannot sustain "
                  "additional unmitigated mortality. The first programmatic eagle take permit under the 2009 rule "
                  "was issued in 2014 for the Shiloh IV wind project in Solano County, California, and required "
                  "the retrofitting of 133 power poles as compensatory mitigation.", 14),
            _page("2.1 Alternatives",
                  "The Service analyzes six alternatives. Alternative 1, No Action, would retain the 2009 "
                  "regulations and the management units they established, which follow the boundaries of the "
                  "Service's administrative regions. Alternative 2 would adopt management units based on the four "
                  "administrative flyways used to manage migratory game birds, the Atlantic, Mississippi, Central "
                  "and Pacific Flyways, and would set take limits of 6 percent of estimated population size for "
                  "bald eagles and zero for golden eagles in each unit unless offset by compensatory mitigation. "
                  "Alternative 3, the Service's preferred alternative, combines those flyway-based units with a "
                  "local area population limit of 5 percent within 86 miles of a project for bald eagles and 109 "
                  "miles for golden eagles, and would extend the maximum permit term from 5 years to 30 years with "
                  "reviews at five-year intervals. Alternatives 4 through 6 vary the take limits and the mitigation "
                  "ratios. Each action alternative would require permittees to monitor eagle fatalities and would "
                  "pool the results in a national database. Public scoping meetings were held by webinar and in "
                  "Sacramento, California; Denver, Colorado; Minneapolis, Minnesota; and Arlington, Virginia, and "
                  "the Service consulted with federally recognized tribes, for many of which the eagle has "
                  "religious and cultural importance.", 14),
        ], none | {
            "title": "Draft Programmatic Environmental Impact Statement for the Eagle Rule Revision",
            "project_title": "Eagle Rule Revision", "lead_agency": "U.S. Fish and Wildlife Service",
            "document_type": "Programmatic Draft EIS", "process_type": "EIS", "year": "2016"}),

        # A servicewide NPS EIS on benefits-sharing from research: no project place (the whole National Park
        # System, expressly "rather than for a single park"). States appear in the history (Indiana University;
        # a company in San Diego, California; a court case "D.D.C.", the District of Columbia as a legal
        # citation), public meetings in Montana, Wyoming, Idaho and Washington, D.C., a company in New Jersey, and
        # the team's office in Fort Collins, Colorado. Yellowstone is named but not as the place of the action.
        # Expected: None.
        Case("nps_servicewide_public_meetings", [
            [("line", "National Park Service", 15, True), ("line", "U.S. Department of the Interior", 10),
             ("gap", 60), ("line", "Servicewide Benefits-Sharing", 22, True),
             ("line", "Draft Environmental Impact Statement", 18, True), ("gap", 50),
             ("line", "Natural Resource Program Center", 10), ("line", "September 2006", 12)],
            _page("Abstract",
                  "The National Park Service (NPS) is considering whether to allow units of the National Park "
                  "System to enter into benefits-sharing agreements with researchers who hold NPS research permits "
                  "and whose study of park specimens yields commercially valuable discoveries. Research on park "
                  "resources has long produced such discoveries, most famously the enzyme now used in the "
                  "polymerase chain reaction, but under current policy the NPS receives none of the monetary or "
                  "other benefits that flow from them. This Draft EIS evaluates two alternatives. Under "
                  "Alternative A, the No Action Alternative, the NPS would continue to issue research permits under "
                  "36 CFR 2.5, and permittees would remain free to commercialize results without any obligation to "
                  "share benefits with the parks. Under Alternative B, Implement Benefits-Sharing, the preferred "
                  "alternative, park superintendents could negotiate benefits-sharing agreements, under the "
                  "authority of the National Parks Omnibus Management Act of 1998 and the Federal Technology "
                  "Transfer Act of 1986, with permittees who later seek to use research results for commercial "
                  "purposes; benefits could include monetary payments, equipment, training and information useful "
                  "to park management. Neither alternative would change the standards by which research permits "
                  "are issued or the amount of collection allowed. The Draft EIS evaluates the effects of the "
                  "alternatives on park resources and values, including natural resources, cultural resources and "
                  "visitor experience, and on NPS operations, the research community and the public, at the scale "
                  "of the National Park System as a whole.", 12),
            _page("1.3 Background",
                  "The issue arose from research in Yellowstone National Park. In 1966, Thomas Brock and Hudson "
                  "Freeze of Indiana University isolated the bacterium Thermus aquaticus from Mushroom Spring in "
                  "the park's Lower Geyser Basin; a heat-stable DNA polymerase from that organism, Taq polymerase, "
                  "later made the polymerase chain reaction practical and earned its developers hundreds of "
                  "millions of dollars, none of which returned to the park. In 1997 Yellowstone signed a "
                  "cooperative research and development agreement (CRADA) with Diversa Corporation of San Diego, "
                  "California, under which Diversa would pay the park $175,000 over five years plus royalties on "
                  "any commercial product. The agreement was challenged in Edmonds Institute v. Babbitt, 93 F. "
                  "Supp. 2d 63 (D.D.C. 2000), and the court suspended it until the NPS completed a NEPA analysis of "
                  "benefits-sharing. The NPS decided to evaluate benefits-sharing for the whole National Park "
                  "System in this EIS rather than for a single park. Since the 1980s, researchers holding NPS "
                  "permits have studied microorganisms and other specimens in more than 40 parks, from the caves of "
                  "Carlsbad Caverns to the hot springs of Yellowstone and Lassen Volcanic, and the number of permits "
                  "involving genetic or biochemical study has grown each year.", 12),
            _page("1.5 Scoping and Public Involvement",
                  "The NPS published a notice of intent to prepare this EIS in the Federal Register on August 11, "
                  "2000, and reopened scoping in 2005 after a delay caused by the litigation. Public meetings were "
                  "held in Bozeman, Montana; Mammoth Hot Springs, Wyoming; Jackson, Wyoming; Idaho Falls, Idaho; "
                  "and Washington, D.C., and about 190 comment letters were received from researchers, "
                  "universities, biotechnology firms, conservation organizations, American Indian tribes and "
                  "individuals. Commenters raised concerns that benefits-sharing would create an incentive for "
                  "parks to favor commercially promising research or to allow excessive collection, that the NPS "
                  "lacked authority to share in the benefits of research, and that parks could not protect the "
                  "confidential business information of researchers. Others urged the NPS to share benefits more "
                  "broadly, as Costa Rica's National Biodiversity Institute did in its 1991 agreement with Merck & "
                  "Co. of Rahway, New Jersey, and as the Convention on Biological Diversity encourages. The NPS has "
                  "considered these comments in defining the alternatives and the impact topics. Comments on this "
                  "Draft EIS may be submitted through the NPS Planning, Environment and Public Comment website or "
                  "mailed to the Benefits-Sharing EIS Team, NPS Natural Resource Program Center, 1201 Oakridge "
                  "Drive, Suite 200, Fort Collins, Colorado 80525.", 12),
        ], none | {
            "title": "Servicewide Benefits-Sharing Draft Environmental Impact Statement",
            "project_title": "Servicewide Benefits-Sharing", "lead_agency": "National Park Service",
            "document_type": "Draft EIS", "process_type": "EIS", "year": "2006"}),
    ]


CASES = _cases()


def write_set(folder: Path) -> Path:
    """Every case as ``<name>.pdf`` in ``folder`` and ``expected.csv`` beside them; returns the CSV's path."""
    return cover_layouts.write_set(folder, CASES)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.documents.body_states_heldout_c OUT_DIR")
    print(write_set(Path(sys.argv[1])))
