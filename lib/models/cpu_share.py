"""How many threads a local model should use for its next call: the cores other processes leave free.

llama.cpp's threads wait for each other by spinning, so a model given every core slows down far more than its
share when another process takes one: on 2 cores here, 42 EnviroExam questions took 27 s on an idle machine and
110 s with a busy loop on the other core; with one thread, 50 s either way. So before each call the model is given
the cores that other processes did not use since the last look (at least one), and the time estimates read the same
figure (``others_busy``) to say how much slower a run will be while the machine is busy."""
from __future__ import annotations

import os
import threading
import time

import psutil  # type: ignore[import-untyped]  # psutil ships no type information

SAMPLE_S = 0.1  # a fresh look, when the last is missing or old, watches the machine this long
FRESH_S = 5.0  # a look older than this says little about now
MIN_WINDOW_S = 0.5  # looks closer together than this keep the last figure (too short to measure)

_LOCK = threading.Lock()
_last: tuple[float, float, float] | None = None  # (monotonic time, the machine's busy CPU seconds, this process's)
_others = 0.0


def _cpus() -> list[int]:
    """The CPUs this process may run on (its affinity: a container or taskset may allow fewer than the machine has)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux: every CPU
        return list(range(os.cpu_count() or 2))


def _reading() -> tuple[float, float, float]:
    """(now, busy CPU seconds of the CPUs this process may use, this process's CPU seconds)."""
    per = psutil.cpu_times(percpu=True)
    mine = [per[i] for i in _cpus() if i < len(per)] or per
    busy = sum(float(getattr(t, f, 0.0)) for t in mine for f in ("user", "nice", "system", "irq", "softirq", "steal"))
    own = psutil.Process().cpu_times()
    return time.monotonic(), busy, float(own.user) + float(own.system)


def others_busy() -> float:
    """Cores that other processes kept busy since the last look (a fresh look of SAMPLE_S when that is old)."""
    global _last, _others
    with _LOCK:
        now = _reading()
        last = _last
        fresh = last is None or now[0] - last[0] > FRESH_S
        if last is None or fresh:  # the last look says little about now: a short one of its own
            last = now
            time.sleep(SAMPLE_S)
            now = _reading()
        wall = now[0] - last[0]
        if wall >= MIN_WINDOW_S or fresh:
            _others = max(0.0, ((now[1] - last[1]) - (now[2] - last[2])) / wall)
            _last = now
        return _others


def cores() -> int:
    """The cores this process may use."""
    return len(_cpus())


def threads() -> int:
    """Threads for a local model's next call: the cores other processes leave free, at least one."""
    return max(1, min(cores(), cores() - round(others_busy())))


def slowdown() -> float:
    """How much slower a local model runs now than on an idle machine: all cores against those left free."""
    return cores() / threads()
