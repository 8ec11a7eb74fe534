"""Bounded-concurrency work with progress reported from the caller's thread, and cancellation."""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from lib.core.access import in_this_context
from lib.core.progress import CountProgressFn


def run_tasks(
    work: Callable[..., str], tasks: Sequence[tuple[object, ...]], max_workers: int, progress: CountProgressFn | None,
    cancel: threading.Event,
) -> None:
    """Run work(*task) for each task on a pool. Progress is reported from this thread, so a page can draw it.
    Any interruption here (a cancel button's rerun, Ctrl-C) sets ``cancel`` so queued tasks return at once;
    work already finished is the task's own to have saved."""
    pool = ThreadPoolExecutor(max_workers=max(1, max_workers))
    futures = [pool.submit(in_this_context(work), *task) for task in tasks]  # each acts as the caller
    try:
        for n, fut in enumerate(as_completed(futures), start=1):
            msg: Any = fut.result()
            if progress:
                progress(n, len(tasks), str(msg))
    except BaseException:
        cancel.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
