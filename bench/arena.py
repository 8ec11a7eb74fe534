"""Arena speed, in one process: the vote cycle (progress, next pair, cast) with one read of the store against three
separate reads (the baseline: what the page did first), on the same arena; and the ratings fit with 1,000 bootstrap
resamples, by number of votes.

    python bench/arena.py [--items 300] [--cycles 20]

Both sides of the vote cycle do the same work on the same arena, alternating, each on its own expert (so neither
meets pairs the other has voted on); no cache is shared or kept between cycles.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--items", type=int, default=300, help="questions in the benchmark run (4 systems: 4 pairs each)")
    ap.add_argument("--cycles", type=int, default=20)
    args = ap.parse_args()

    from lib.core.stats.bradley_terry import Vote, ratings
    from lib.review import arena
    from lib.storage.engine import get_engine
    from tests.review.test_arena import make_run

    engine = get_engine(f"sqlite:///{tempfile.mkdtemp(prefix='arena_bench_')}/a.db")
    aid = arena.create_arena(f"bench:{make_run(engine, n_items=args.items, fail=())}", engine=engine)
    n_pairs = len(arena.arena_pairs(arena.get_arena(aid, engine), engine))
    for who in ("warm-up A", "warm-up B"):  # some votes in the arena, as in use
        for _ in range(10):
            arena.cast_vote(aid, who, arena.next_pair(aid, who, engine), "left", engine=engine)

    def three_reads() -> None:
        arena.progress(aid, "Baseline", engine)
        arena.cast_vote(aid, "Baseline", arena.next_pair(aid, "Baseline", engine), "right", engine=engine)

    def one_read() -> None:
        snap = arena.snapshot(aid, engine)
        arena.progress(aid, "Snapshot", snap=snap)
        arena.cast_vote(aid, "Snapshot", arena.next_pair(aid, "Snapshot", snap=snap), "right", engine=engine, snap=snap)

    times: dict[str, list[float]] = {"three reads": [], "one read": []}
    for _ in range(args.cycles):
        for name, fn in (("three reads", three_reads), ("one read", one_read)):
            started = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - started)
    base, new = statistics.median(times["three reads"]), statistics.median(times["one read"])

    import numpy as np

    rng = np.random.default_rng(0)
    fits = {}
    for n in (30, 300, 2000):
        votes = [Vote(f"m{a}", f"m{b}", ("left", "right", "tie")[int(rng.integers(0, 3))])
                 for a, b in (rng.choice(4, 2, replace=False) for _ in range(n))]
        started = time.perf_counter()
        ratings(votes, n_bootstrap=1000)
        fits[n] = round(time.perf_counter() - started, 2)
    print(json.dumps({"pairs": n_pairs, "cycles": args.cycles,
                      "vote_cycle_ms": {"three reads (baseline)": round(base * 1000, 1), "one read": round(new * 1000, 1),
                                        "speed-up": round(base / new, 2)},
                      "ratings_fit_s_1000_resamples": fits}, indent=1))


if __name__ == "__main__":
    main()
