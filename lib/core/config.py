"""Layered configuration: defaults, then environment variables, then ``.streamlit/secrets.toml``.

Keys (API keys, server URLs) live only in the environment or in the secrets file; they are
never written anywhere by this project.
"""
from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from lib.core.errors import UserError

REPO_ROOT = Path(__file__).resolve().parents[2]  # lib/core/config.py -> the repository
DATA_DIR = REPO_ROOT / "data"
SAMPLE_PDF = DATA_DIR / "eis" / "eis_Continental_United_States_Interceptor_Site.pdf"
SAMPLE_QUESTIONS = DATA_DIR / "nepa" / "NEPAQuAD1_CONUS_pages.csv"
SAMPLE20 = DATA_DIR / "nepa" / "NEPAQuAD1_sample20.csv"
# The shipped item sets by name, as a reader calls them (their file names are what runs and labels store).
SAMPLE_SET_NAMES = {SAMPLE20.name: "NEPAQuAD sample (20 items)", SAMPLE_QUESTIONS.name: "NEPAQuAD sample (155 items)"}

DEFAULTS: dict[str, str] = {
    "NEPAQA_HOME": str(Path.home() / ".nepaqa"),
    "NEPAQA_EMBED_MODEL": "",  # empty: the bundled all-MiniLM-L6-v2
    "NEPAQA_EMBED_BACKEND": "onnx-int8",  # onnx-int8 | onnx | torch (see lib/models/embedding_onnx.py)
    "NEPAQA_EMBED_THREADS": "",  # empty: one ONNX session per core; a worker per core on one machine: 1
    "NEPAQA_MODEL_CACHE": "",  # empty: NEPAQA_HOME/models (the embedder exported to ONNX, once per machine)
    "NEPAQA_CHROMA_URL": "",  # empty: persistent Chroma under NEPAQA_HOME
    "NEPAQA_DATABASE_URL": "",  # empty: SQLite under NEPAQA_HOME
    "NEPAQA_MAX_UPLOAD_MB": "1024",
    "NEPAQA_CHUNK_SIZE": "200",
    # 1: ruled tables also indexed as their own passages of Markdown rows (a table of paragraphs stays prose); 0:
    # every table prose only (bench/README.md, "Scanned pages and tables")
    "NEPAQA_TABLES": "1",
    "NEPAQA_CHUNK_OVERLAP": "40",
    # Read once, by the store's upgrade (schema step 13): each name or e-mail listed gets the adjudicator role.
    "NEPAQA_ADJUDICATORS": "",
    # Who has which role: "e-mail=role, group:<name>=role, …" (lib/storage/accounts.py seeds the role table from it).
    "NEPAQA_ROLES": "",
    # 1: serve on a network address without sign-in (lib/app/accounts.py, .ci/exposed.py).
    "NEPAQA_ALLOW_ANONYMOUS": "",
    # Whom a signed-in person with no role is told to ask (e.g. "the NEPA office, nepa-help@agency.gov"); empty: the
    # admins' e-mails.
    "NEPAQA_ACCESS_CONTACT": "",
}


def _secrets_path() -> Path:
    override = os.environ.get("NEPAQA_SECRETS")
    if override:
        return Path(override)
    local = Path.cwd() / ".streamlit" / "secrets.toml"
    return local if local.exists() else REPO_ROOT / ".streamlit" / "secrets.toml"


def _load_secrets() -> dict[str, str]:
    path = _secrets_path()
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    # Only top-level scalars are settings; tables (e.g. [auth]) belong to Streamlit.
    return {k: str(v) for k, v in data.items() if isinstance(v, (str, int, float, bool))}


def get(name: str, default: str | None = None) -> str | None:
    """The value of a setting: secrets.toml wins over the environment, which wins over defaults."""
    secrets = _load_secrets()
    if name in secrets and secrets[name] != "":
        return secrets[name]
    if os.environ.get(name):
        return os.environ[name]
    if name in DEFAULTS and DEFAULTS[name] != "":
        return DEFAULTS[name]
    return default


def source_of(name: str) -> str:
    """Where a setting comes from: 'secrets', 'environment', 'default' or 'unset'."""
    if _load_secrets().get(name):
        return "secrets"
    if os.environ.get(name):
        return "environment"
    if DEFAULTS.get(name):
        return "default"
    return "unset"


@dataclass(frozen=True)
class Paths:
    home: Path

    @property
    def chroma(self) -> Path:
        return self.home / "chroma"

    @property
    def database(self) -> Path:
        return self.home / "nepaqa.db"

    @property
    def uploads(self) -> Path:
        return self.home / "uploads"


def home() -> Path:
    path = Path(get("NEPAQA_HOME") or DEFAULTS["NEPAQA_HOME"]).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def paths() -> Paths:
    return Paths(home())


def max_upload_bytes() -> int:
    raw = get("NEPAQA_MAX_UPLOAD_MB") or "1024"
    try:
        mb = float(raw)
    except ValueError:
        mb = float("nan")
    if not math.isfinite(mb) or mb <= 0:
        raise UserError(f"NEPAQA_MAX_UPLOAD_MB must be a positive number of megabytes (got '{raw}').")
    return int(mb * 1024 * 1024)
