"""What each kind of job is asked to do, as typed records. A job's parameters are stored as JSON in its row (so an
interrupted job resumes from it after a restart): they are written from these records and read back into them,
checked, at the handler's door (``parse``), so a handler never reads a loose dict. The keys are the records' field
names, as the jobs table has always held them."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TypeVar

from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.evaluation.benchmark.dataset import Item
from lib.evaluation.benchmark.runs import RunConfig

T = TypeVar("T")
MetadataValue = str | int | float | list[str] | None  # a metadata field's stored form


@dataclass(frozen=True)
class IngestJob:
    """Index one PDF, or re-index a document with new chunk settings (``reindex`` names it)."""

    path: str | None = None
    name: str | None = None
    chunk_size: int | None = None
    chunk_overlap: int | None = None
    staged: bool = False  # an upload kept under NEPAQA_HOME/uploads until the job has finished with it
    metadata: dict[str, MetadataValue] | None = None  # checked values (a bulk ingest's manifest) over what extraction reads
    reindex: str | None = None
    sha256: str | None = None  # what a later bulk ingest recognises as on its way


@dataclass(frozen=True)
class ExamJob:
    model: str
    shots: int = 0
    cot: bool = False
    courses: list[str] | None = None
    limit: int | None = None
    split: str = "test"
    circular: bool = False
    restart: bool = False
    max_workers: int = 4

    def run_key(self) -> JSONObject:
        """What makes two exam jobs the same run (one job at a time works on it)."""
        return {"model": self.model, "shots": self.shots, "cot": self.cot, "courses": self.courses,
                "limit": self.limit, "split": self.split, "circular": self.circular}


@dataclass(frozen=True)
class BenchmarkJob:
    run_id: str
    items: list[Item] | None = None  # a new run's items (dropped from the row once the run keeps them)
    config: RunConfig | None = None  # a new run's
    max_workers: int = 4


@dataclass(frozen=True)
class GenerateJob:
    doc_id: str
    chunks: list[int]
    model: str
    per_type: dict[str, int]


OPTIONAL = ("metadata", "reindex", "sha256")  # left out of a row while empty, as rows always had them


def to_json(job: IngestJob | ExamJob | BenchmarkJob | GenerateJob) -> JSONObject:
    """A job record as its row stores it."""
    out: JSONObject = asdict(job)
    return {k: v for k, v in out.items() if not (k in OPTIONAL and v is None)}


def parse(kind: type[T], params: JSONObject) -> T:
    """A job's stored parameters as its record, checked (numbers written as text are read as numbers; keys a
    record does not name, from older rows, are left out). A row that does not fit raises UserError."""
    from pydantic import TypeAdapter, ValidationError  # heavy (about 0.25 s): imported when a job runs, off start-up

    try:
        return TypeAdapter(kind).validate_python(params)
    except ValidationError as exc:
        raise UserError(f"This job's stored parameters do not fit its record, {kind.__name__} "
                        f"({exc.error_count()} problem(s), first: {exc.errors()[0]['loc']} {exc.errors()[0]['msg']}); start it again "
                        "instead of resuming it.") from exc
