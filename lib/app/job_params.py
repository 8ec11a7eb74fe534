"""What each kind of job is asked to do, as typed records. A job's parameters are stored as JSON in its row (so an
interrupted job resumes from it after a restart): they are written from these records and read back into them,
checked, at the handler's door (``parse``), so a handler never reads a loose dict. The keys are the records' field
names, as the jobs table has always held them."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, TypeVar, cast

from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.evaluation.benchmark.dataset import Item
from lib.evaluation.benchmark.runs import RunConfig

if TYPE_CHECKING:  # for the checker only: pydantic is imported when a job runs
    from pydantic import TypeAdapter

T = TypeVar("T")
MetadataValue = str | bool | int | float | list[str] | None  # a metadata field's stored form


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
    eis_id: str | None = None  # one of a set of volumes: the EIS it joins when indexed (lib/collection/volumes.py)
    volume: int | None = None  # its volume number there
    grouped_by: str | None = None  # how the set was given: upload | folder | manifest
    file_name: str | None = None  # the file as the user named it ("volume 2.pdf"), for messages


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
    max_workers: int | None = 4  # None (older rows): 4

    def run_key(self) -> JSONObject:
        """What makes two exam jobs the same run (one job at a time works on it)."""
        return {"model": self.model, "shots": self.shots, "cot": self.cot, "courses": self.courses,
                "limit": self.limit, "split": self.split, "circular": self.circular}


@dataclass(frozen=True)
class BenchmarkJob:
    run_id: str
    items: list[Item] | None = None  # a new run's items (dropped from the row once the run keeps them)
    config: RunConfig | None = None  # a new run's
    max_workers: int | None = 4  # None (older rows): 4


@dataclass(frozen=True)
class GenerateJob:
    doc_id: str
    chunks: list[int]
    model: str
    per_type: dict[str, int]


OPTIONAL = ("metadata", "reindex", "sha256", "eis_id", "volume", "grouped_by", "file_name")  # left out of a row while empty


def to_json(job: IngestJob | ExamJob | BenchmarkJob | GenerateJob) -> JSONObject:
    """A job record as its row stores it."""
    out: JSONObject = asdict(job)
    return {k: v for k, v in out.items() if not (k in OPTIONAL and v is None)}


_readers: dict[type, TypeAdapter[object]] = {}  # one reader per record, built on first use (about 10 ms each)


def _reader(kind: type) -> TypeAdapter[object]:
    from pydantic import TypeAdapter  # heavy (about 0.25 s with the first adapter): imported when a job runs

    if kind not in _readers:
        _readers[kind] = TypeAdapter(kind)
    return _readers[kind]


def parse(kind: type[T], data: JSONObject, what: str = "parameters") -> T:
    """A job's stored parameters (or its ``result``) as their record, checked: numbers written as text are read as
    numbers, and keys the record does not name (from older rows) are left out. A row that does not fit raises
    UserError saying so."""
    from pydantic import ValidationError  # heavy: see _reader

    try:
        return cast(T, _reader(kind).validate_python(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        todo = "start it again instead of resuming it" if what == "parameters" else "its numbers cannot be shown"
        raise UserError(f"This job's stored {what} do not fit its record, {kind.__name__} ({exc.error_count()} "
                        f"problem(s), first: {first['loc']} {first['msg']}); {todo}.") from exc
