"""The time a call to a model spent waiting rather than being answered: a rate limit's pause, and the SDK's
backoff between a failed try and its retry. Kept per thread, so the seconds recorded for an answer (and the
estimates built from them) leave the waiting out.

The SDKs retry inside one call, so the waiting is seen from their HTTP hooks: a response that will be retried
(408, 409, 429, 5xx) starts the clock, and the next request of the same call stops it. A call starts with the
clock stopped (``call_started``), so a failure the SDK gave up on is never counted against the next call. A try
that timed out has no response, so its time and the backoff after it are counted as the call's."""
from __future__ import annotations

import threading
import time

RETRIED = frozenset({408, 409, 429})  # and every 5xx: what the OpenAI and Anthropic SDKs retry

_local = threading.local()


def total() -> float:
    """Seconds this thread has waited so far, ever: a caller takes the difference across its call."""
    return float(getattr(_local, "total", 0.0))


def add(seconds: float) -> None:
    """Count ``seconds`` this thread spent waiting (a pause slept out)."""
    if seconds > 0:
        _local.total = total() + seconds


def call_started() -> None:
    """A new call: no failed response of an earlier call is waiting for its retry."""
    _local.failed_at = None


def response(status: int | None) -> None:
    """A response came: one the SDK will retry starts the backoff clock."""
    retried = status is not None and (status in RETRIED or status >= 500)
    _local.failed_at = time.monotonic() if retried else None


def request() -> None:
    """A request goes out: where it retries a failed one, the time since that failure was backoff."""
    failed_at = getattr(_local, "failed_at", None)
    if failed_at is not None:
        add(time.monotonic() - failed_at)
        _local.failed_at = None
