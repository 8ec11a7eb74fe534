"""JSON as the app writes and reads it (job parameters and results, run manifests, records turned into dicts for the
command line and exports), typed for the checker: text, a number, true/false, null, a list of values, or an object
of them. Readers narrow a value before they use it (``str(v)``, ``isinstance``); writers may put in any lists and
mappings of these."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JSON: TypeAlias = str | int | float | bool | None | Sequence["JSON"] | Mapping[str, "JSON"]
JSONObject: TypeAlias = dict[str, JSON]  # an object the app built or parsed


def json_int(value: JSON) -> int | None:
    """A whole number read from JSON (a bool is not one); None for anything else."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def json_str(value: JSON) -> str | None:
    """Text read from JSON; None for anything else."""
    return value if isinstance(value, str) else None
