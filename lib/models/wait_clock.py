"""The time a call to a model spent waiting rather than being answered: a rate limit's pause, and the SDK's
backoff between a failed try and its retry. Kept per thread, so the seconds recorded for an answer (and the
estimates built from them) leave the waiting out.

The SDKs retry inside one call, so the waiting is seen from their HTTP hooks: a response that will be retried
(408, 409, 429, 5xx) starts the clock, and the next request of the same call stops it. A call starts with the
clock stopped (``call_started``), so a failure the SDK gave up on is never counted against the next call. A try
that timed out or lost its connection has no response: the transport marks the moment it failed
(``failed_now``), so the try itself counts as the call's time and the backoff after it does not."""
from __future__ import annotations

import threading
import time
from typing import Any

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


def failed_now() -> None:
    """A try ended with no response (a timeout, a refused or broken connection): the SDK's backoff starts here."""
    _local.failed_at = time.monotonic()


def request() -> None:
    """A request goes out: where it retries a failed one, the time since that failure was backoff."""
    failed_at = getattr(_local, "failed_at", None)
    if failed_at is not None:
        add(time.monotonic() - failed_at)
        _local.failed_at = None


class MarkedTransport:
    """An HTTP transport that marks on the wait clock the moment a try ends with no response (a timeout, a refused
    or broken connection), so the SDK's backoff after it is left out of the answer's time."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def handle_request(self, request: Any) -> Any:
        try:
            return self.wrapped.handle_request(request)
        except Exception:
            failed_now()
            raise

    def close(self) -> None:
        self.wrapped.close()

    def __enter__(self) -> MarkedTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def mark_failed_tries(http_client: Any) -> Any:
    """The SDK's HTTP client with its transports (the default one, and any a proxy setting mounted) marked; a
    client without the transport this expects is left as it is."""
    inner = getattr(http_client, "_transport", None)
    if inner is None or not hasattr(inner, "handle_request"):
        return http_client
    http_client._transport = MarkedTransport(inner)  # httpx2's client keeps its transport here
    mounts = getattr(http_client, "_mounts", None)
    if isinstance(mounts, dict):
        for pattern, transport in list(mounts.items()):
            if transport is not None and hasattr(transport, "handle_request"):
                mounts[pattern] = MarkedTransport(transport)
    return http_client
