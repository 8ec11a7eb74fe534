"""The offline support checker: its accuracy per kind on the sample EIS's sentence–passage table
(tests/qa/support_pairs.py), and its time per sentence on this machine, cold (no sentence embedded before) and
warm (the same sources checked again, as a benchmark's many questions over one passage are), against embedding the
same sentences alone in the same process (the floor any meaning-based check pays). Cold empties the checker's
cache before every answer, so it and the baseline do the same embedding work.

    python bench/support.py
"""
from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    from lib.core.stats.inference import wilson_interval
    from lib.models.embedding import get_exact_embedder
    from lib.models.extractive import split_sentences
    from lib.qa import support
    from lib.qa.support import Passage, check
    from tests.qa.support_pairs import pairs, passages

    table = pairs()
    ps = passages()
    check("A warm-up sentence about nothing in particular.", [Passage(1, "Another warm-up sentence here.")])

    right: dict[str, list[bool]] = defaultdict(list)
    confusions: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for kind, sentence, i, want in table:
        got = check(sentence, [Passage(1, ps[i], "p. 1")]).sentences[0].status
        right[kind].append(got == want)
        confusions[kind][got] += 1
    print(f"accuracy per kind over {len(table)} sentence–passage pairs (thresholds: supported ≥ "
          f"{support.SUPPORTED_AT}, partly ≥ {support.PARTLY_AT}):")
    for kind, marks in right.items():
        lo, hi = wilson_interval(sum(marks), len(marks))
        marks_given = ", ".join(f"{s}: {n}" for s, n in sorted(confusions[kind].items()))
        print(f"  {kind:11s} {sum(marks):2d}/{len(marks)} = {sum(marks) / len(marks):.2f} [{lo:.2f}, {hi:.2f}]   "
              f"marks given: {marks_given}")

    def timed(run) -> list[float]:
        out = []
        for _ in range(3):
            support._VECTORS.clear()
            started = time.perf_counter()
            n = run()
            out.append((time.perf_counter() - started) / n * 1000)
        return out

    def cold() -> int:  # each answer as if its sources had never been seen: the cache emptied before each
        n = 0
        for _, sentence, i, _ in table:
            support._VECTORS.clear()
            n += len(check(sentence, [Passage(1, ps[i])]).sentences)
        return n

    def seen() -> int:  # the same, with the sources' sentences already embedded (one passage, many questions)
        return sum(len(check(sentence, [Passage(1, ps[i])]).sentences) for _, sentence, i, _ in table)

    def floor() -> int:  # embed each pair's sentence and its passage's sentences, nothing else
        emb = get_exact_embedder()
        for _, sentence, i, _ in table:
            emb.embed([sentence, *split_sentences(ps[i])])
        return len(table)

    cold_ms, floor_ms = timed(cold), timed(floor)
    support._VECTORS.clear()
    seen()
    started = time.perf_counter()
    n = seen()
    warm_ms = (time.perf_counter() - started) / n * 1000
    print(f"\ntime per sentence ({len(table)} answers of one sentence, each against its passage; 3 runs):")
    print(f"  embedding every source sentence (baseline) median {statistics.median(floor_ms):6.1f} ms  (runs {', '.join(f'{x:.1f}' for x in floor_ms)})")
    print(f"  offline check, cold                          median {statistics.median(cold_ms):6.1f} ms  (runs {', '.join(f'{x:.1f}' for x in cold_ms)})"
          f"  {statistics.median(cold_ms) / statistics.median(floor_ms):.2f}× the baseline")
    print(f"  offline check, sources seen                  {warm_ms:6.1f} ms")
    print(f"  budget: 50 ms a sentence; cold is {'within' if statistics.median(cold_ms) <= 50 else 'OVER'} it")


if __name__ == "__main__":
    main()
