"""Do the estimates hold? The default EnviroExam run and the Ask demo, each estimated as the page does it (a range)
and then run: once on a quiet machine and once with a busy loop on another core, after a first run that measures
this machine's rate (as a first run in the app does).

    python bench/estimates.py

For each run it prints the range shown before it, the time it took, and whether that time fell inside the range
(and the range's high end is at most 2× its low end). The same work on both sides: the exam run is the page's
default (the question limit the page picks, all 42 courses, 0-shot), started over each time (answers another run
gave under the same settings are copied, as in the app, and the estimate counts only the questions asked); the demo
is its three questions × the offline models × its modes. Nothing is cached between runs but the loaded models, as
in the app. The baseline in the same run is the quiet machine.

While the demo runs it also checks the countdown the page shows after each answer (the time left, a range) against
the time that was actually left, beside the countdown the page had before (one pace for the whole run) as the
baseline of the same run, read at the same moments; it fails where, on the measured runs, the page's countdown is
inside its range fewer than 4 times in 5."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def busy_loop() -> subprocess.Popen[bytes]:
    """Another process keeping one core busy for up to 10 minutes."""
    return subprocess.Popen([sys.executable, "-c", "import time\nt = time.time()\nwhile time.time() - t < 600: pass"])


def main() -> None:
    os.environ["NEPAQA_HOME"] = tempfile.mkdtemp(prefix="nepaqa_bench_estimates_")
    from lib.app import ask as ask_case
    from lib.app import estimates
    from lib.app import exam as exam_case
    from lib.app.services import get_services
    from lib.core import config
    from lib.evaluation import exam as ee
    from lib.evaluation.benchmark.dataset import load_sample_items
    from lib.models import cpu_share, registry
    from lib.qa import ask as ask_lib
    from pages._ask_demo import DEMO_ITEMS, DEMO_MODES

    svc = get_services()
    doc_id = svc.docs.ingest_file(str(config.SAMPLE_PDF)).doc_id
    model = registry.resolve("smollm2")
    models = [m for m in registry.OFFLINE_DEFAULTS if registry.get(m).available()[0]]
    items = {it.id: it for it in load_sample_items()}

    def exam_run() -> tuple[estimates.Estimate, float]:
        limit = exam_case.default_limit(model, 0, False, False, len(ee.courses()))
        est = exam_case.plan(model, 0, False, None, limit, False, restart=True).estimate  # as with "Start over"
        started = time.perf_counter()
        ee.run_exam(model, 0, False, None, limit or None, restart=True)
        return est, time.perf_counter() - started

    countdowns: list[tuple[str, str, int, int, float | None, tuple[float, float] | None]] = []
    # run, countdown, inside its range, answers checked, the median and extremes of actual time left / shown

    def demo_run() -> tuple[estimates.Estimate, float]:
        """The demo, with the page's countdown (each model at its own pace) and, as its baseline, one pace for the
        whole run (the countdown the page had): each read after every answer but the last, as the page shows
        them, and checked against the time that was actually left."""
        est = estimates.benchmark(len(DEMO_ITEMS), models, DEMO_MODES, like_ask=True)
        countdown = estimates.Countdown(est)
        total = len(DEMO_ITEMS) * len(models) * len(DEMO_MODES)
        shown: list[tuple[float, float, float]] = []  # when, the page's seconds left, one pace's seconds left
        # (after each answer but the last where the page gives a figure; the baseline read at the same moments)
        started = time.perf_counter()

        last, n = [started], [0]

        def arrived(r: ask_lib.AskResult) -> None:
            now = time.perf_counter()
            countdown.arrived(r.model, r.mode, now - last[0])
            last[0], n[0] = now, n[0] + 1
            if n[0] < total and countdown.left():  # as the page shows it: no figure from rough guesses alone
                shown.append((now, countdown.seconds(), (now - started) / n[0] * (total - n[0])))

        for item_id in DEMO_ITEMS:
            it = items[item_id]
            ask_case.run(ask_case.Settings(it.question, models, DEMO_MODES, doc_id, ask_lib.DEFAULT_K,
                                           it.question_type == "closed", False, it.context), svc, on_result=arrived)
        ended = time.perf_counter()
        for which, at in (("each model at its own pace", 1), ("one pace for the run (baseline)", 2)):
            inside = sum(s[at] * estimates.LOW <= ended - s[0] <= s[at] * estimates.HIGH for s in shown)
            ratios = sorted((ended - s[0]) / s[at] for s in shown if s[at] > 0)
            countdowns.append((machine[0], which, inside, len(shown), ratios[len(ratios) // 2] if ratios else None,
                               (ratios[0], ratios[-1]) if ratios else None))
        return est, ended - started

    rows = []
    machine = ["first run (nothing measured)"]
    for name, run in (("default EnviroExam run", exam_run), ("Ask demo (18 answers)", demo_run)):
        machine[0] = "first run (nothing measured)"
        first = run()  # measures this machine's rate, as a first run in the app does
        rows.append((name, machine[0], first[0], first[1]))
        machine[0] = "quiet"
        rows.append((name, "quiet", *run()))
        loop = busy_loop()
        try:
            time.sleep(1.0)
            cpu_share.others_busy()
            time.sleep(0.6)
            machine[0] = "another core busy"
            rows.append((name, "another core busy", *run()))
        finally:
            loop.kill()
    print(f"cores: {cpu_share.cores()}  ·  range: {estimates.LOW}×–{estimates.HIGH}× the expected time")
    print("| run | machine | shown before | low–high (s) | took (s) | inside | high/low |")
    print("|---|---|---|---|---|---|---|")
    failed = 0
    for name, machine, est, took in rows:
        checked = est.measured and est.low > 0
        inside = est.low <= took <= est.high if checked else None
        failed += inside is False or (checked and est.high > 2 * est.low)
        print(f"| {name} | {machine} | {est.text().split(' (')[0]} | "
              + (f"{est.low:.0f}–{est.high:.0f}" if checked else "—") + f" | {took:.1f} | "
              + ("—" if inside is None else "yes" if inside else "**no**") + " | "
              + (f"{est.high / est.low:.2f}" if checked else "—") + " |")
    print("\nThe demo's countdown while it runs: after each answer but the last, is the time actually left inside "
          "the range shown?")
    print("| machine | countdown | inside | of | actual / shown: median (min–max) |")
    print("|---|---|---|---|---|")
    for where, which, inside, n, median, extremes in countdowns:
        print(f"| {where} | {which} | {inside} | {n} | "
              + (f"{median:.2f} ({extremes[0]:.2f}–{extremes[1]:.2f})" if median and extremes else "—") + " |")
        # the page's countdown, once this machine's pace is known (not the first run): inside at least 4 times in 5
        failed += where != "first run (nothing measured)" and which.startswith("each") and inside < 0.8 * n
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
