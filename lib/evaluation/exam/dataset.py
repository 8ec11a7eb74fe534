"""EnviroExam's data: 42 courses (dev and test splits, in Chinese as published), their English titles and
education levels (the paper's Appendix A), and the published leaderboard."""
from __future__ import annotations

import csv
from dataclasses import dataclass

from lib.core import config
from lib.core.errors import UserError
from lib.core.json_types import JSONObject

DATA = config.DATA_DIR / "enviroexam"
LETTERS = ("A", "B", "C", "D")
ROTATIONS = len(LETTERS)  # circular evaluation asks each question under every rotation of its options

# Appendix A of the paper: course → education level (the file names are these names in snake case).
LEVELS = {
    "Environmental Impact Assessment": "Bachelor", "Atmospheric Pollution Control Engineering": "Bachelor",
    "Environmental Monitoring": "Bachelor", "Pollution Control Microbiology": "Bachelor",
    "Environmental Nanotechnology": "Bachelor", "Principles And Applications Of Ecology": "Bachelor",
    "Environmental Physical Pollution And Control": "Bachelor", "Environmental Planning And Management": "Bachelor",
    "Environmental Analytical Chemistry": "Bachelor", "Environmental Science": "Bachelor",
    "Solid Waste Treatment And Resource Utilization": "Bachelor", "Environmental Soil Science": "Bachelor",
    "Specialty Wastewater Treatment": "Bachelor", "Environmental Decision Support System": "Bachelor",
    "Environmental Statistics": "Bachelor", "Environmental Economics": "Bachelor",
    "Indoor Environmental Pollution And Control": "Bachelor", "Industrial Ecology": "Bachelor",
    "Urban Water Supply And Drainage System Engineering": "Bachelor", "Environmental Fluid Mechanics": "Bachelor",
    "Water Pollution Control Engineering": "Bachelor",
    "Environmental Geographic Information System": "Master", "Modern Biology": "Master",
    "Atmospheric Particulate Matter Detection And Analysis Techniques": "Master",
    "Environmental Microwave Chemistry Technology": "Master",
    "Circulate Economy And Industrial Ecology Methodologies": "Master",
    "Clean Production And Energy Conservation And Emissions Reduction": "Master",
    "Reaction Kinetics And Reactor Design": "Master", "Engineering Ethics And Environmental Ethics": "Master",
    "Safe Disposal And Resource Recovery Of Hazardous Waste": "Master",
    "Sludge Treatment Disposal And Resource Utilization": "Master",
    "Theory And Technology Of Air Pollution Prevention And Control": "Master",
    "Theory And Technology Of Environmental Pollution Prevention And Control": "Master",
    "Environmental Electrochemical Theory And Technology": "Master",
    "Advanced Environmental Chemistry": "Doctor", "Modern Detection Techniques": "Doctor",
    "Persistent Organic Pollutants": "Doctor", "Carbon Neutrality Theory And Technology": "Doctor",
    "Environmental Pollution Investigation And Tracing": "Doctor",
    "Environmental Behavior Of Atmospheric Science And Climate Change": "Doctor",
    "Environmental Biotechnology": "Doctor", "Mass Transfer Processes": "Doctor",
}


@dataclass
class Question:
    course: str
    index: int
    question: str
    options: dict[str, str]
    answer: str


def courses() -> list[str]:
    return sorted(p.stem for p in (DATA / "test").glob("*.csv"))


def course_title(course: str) -> str:
    return " ".join(w.capitalize() for w in course.split("_"))


def course_level(course: str) -> str:
    title = course_title(course).lower()
    return next((lvl for name, lvl in LEVELS.items() if name.lower() == title), "Unknown")


def load_course(course: str, split: str = "test") -> list[Question]:
    if split not in ("test", "dev"):
        raise UserError("split must be test or dev.")
    path = DATA / split / f"{course}.csv"
    if not path.exists():
        raise UserError(f"Unknown course '{course}'. Run `python -m lib exam --help` or see the EnviroExam page for the list.")
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [Question(course, i, r["Question"].strip(), {k: r[k].strip() for k in LETTERS}, r["Answer"].strip().upper())
            for i, r in enumerate(rows)]


def load_published() -> list[JSONObject]:
    with (DATA / "published_zero_shot.csv").open(encoding="utf-8") as fh:
        return [{k: (v if k == "model" else float(v)) for k, v in r.items()} for r in csv.DictReader(fh)]
