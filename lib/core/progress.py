"""The shapes of progress callback that long work reports through, one name each."""
from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[str, float, str], None]  # (stage, fraction 0..1 of the whole, message): jobs and ingest
CountProgressFn = Callable[[int, int, str], None]  # (done, total, message): a pool of tasks (answers, questions)
FractionProgressFn = Callable[[float, str], None]  # (fraction 0..1, message): one stage, such as embedding
