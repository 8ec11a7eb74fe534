"""EnviroExam: the offline model over the whole test split (726 questions, 42 courses), timed.

    python bench/exam.py [--model smollm2] [--shots 0]

Reports accuracy per course against chance (25%) and against the always-the-most-common-letter baseline
computed from the answer key in the same run, plus M, σ, CV and I.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--shots", type=int, default=0)
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_exam_")

    from lib.evaluation import exam as ee

    t = time.perf_counter()
    res = ee.run_exam(args.model, args.shots, False, None, args.limit)
    wall = time.perf_counter() - t
    key = [q.answer for c in ee.courses() for q in ee.load_course(c)[: args.limit or None]]
    letter, count = Counter(key).most_common(1)[0]
    print(f"{args.model} {args.shots}-shot: {res.n_questions} questions in {wall:.1f} s "
          f"({res.n_questions / wall:.2f} q/s); unparsed {res.unparsed}")
    print(f"{'course':72} {'level':8} {'acc %':>6} {'vs 25%':>7}")
    for course, acc in sorted(res.courses.items(), key=lambda kv: -kv[1]):
        print(f"{ee.course_title(course):72} {ee.course_level(course):8} {acc:6.1f} {acc - 25:+7.1f}")
    above = sum(1 for a in res.courses.values() if a > 25)
    sizes = {c: len(ee.load_course(c)[: args.limit or None]) for c in res.courses}
    overall = sum(res.courses[c] * sizes[c] for c in sizes) / sum(sizes.values())
    print(f"overall accuracy {overall:.1f}% (chance 25%; always-'{letter}' baseline {100 * count / len(key):.1f}%); "
          f"{above} of {len(res.courses)} courses above chance")
    print(f"M {res.M}  sigma {res.sigma}  CV {res.cv}  I {res.I}  void {res.void}")


if __name__ == "__main__":
    main()
