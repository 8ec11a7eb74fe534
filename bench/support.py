"""The offline support checker as a measured classifier (issue 36), on the labelled set in data/support/:

    python bench/support.py --fit     # fit on train, choose the cuts on dev, write lib/qa/support_model.json
    python bench/support.py           # measure the shipped model on test, beside word overlap; time it

Both print the test split's table (sentence and response level: balanced accuracy, precision and recall of
"unsupported", AUROC, each with n and a 95% interval) for the checker and for the word-overlap baseline, whose cut
is chosen on the same dev split, then each mark's worth and the time per sentence. ``--fit`` also writes the
marks' test figures into the model file (what the legend and hover show) and the table into bench/README.md.
"""
from __future__ import annotations

import contextlib
import json
import os
import platform
import statistics
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

README = Path(__file__).with_name("README.md")


def _cell(f: dict) -> str:
    if f["value"] is None:
        return f"— (n = {f['n']})"
    return f"{f['value']:.3f} [{f['lo']:.3f}, {f['hi']:.3f}] n={f['n']}"


def _pct(f: dict) -> str:
    if f["value"] is None:
        return f"— (n = {f['n']})"
    return f"{f['value']:.0%} [{f['lo']:.0%}, {f['hi']:.0%}] n={f['n']}"


def _machine() -> str:
    cpu = ""
    with contextlib.suppress(OSError):
        cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                    if ln.startswith("model name")), "")
    return f"{cpu or platform.processor()}, {len(os.sched_getaffinity(0))} cores"


def main() -> None:  # noqa: PLR0915 - one report, printed in order
    from lib.evaluation import support_eval as ev
    from lib.qa import support_model, support_signals
    from lib.qa.support import Passage, check

    fit = "--fit" in sys.argv
    raw, passages = ev.load()
    labelled = [r for r in raw if r.get("label")]
    print(f"labelled sentences: {len(labelled)} of {len(raw)} "
          f"({', '.join(f'{k}: {v}' for k, v in sorted(ev._count(r['split'] for r in labelled).items()))})")
    if fit:
        support_model.MODEL_FILE.unlink(missing_ok=True)
        support_model.load.cache_clear()
        rows, _ = ev.run_checker(raw, passages)
        model = ev.fit(rows)
        model["cuts"] = {"supported": 1.01, "partly": 1.01, "unsupported": 0.0}
        support_model.MODEL_FILE.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
        support_model.load.cache_clear()
        model["cuts"] = {k: round(v, 4) for k, v in ev.choose_cuts(rows, support_model.load()).items()}
        model["rules"] = support_model.RULES
        support_model.MODEL_FILE.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
        support_model.load.cache_clear()
    rows, missing = ev.run_checker(raw, passages)
    model = support_model.load()
    print(f"cuts (chosen on dev): {model.cuts}; sentences the check did not find: {len(missing)}")

    answers = {r["response_id"]: r["answer"] for r in raw}
    passage_of = {r["response_id"]: passages[r["passage_id"]]["text"] for r in raw}
    lines = [f"## Support checker (issue 36): {date.today().isoformat()}, {_machine()}", "",
             f"Labelled set: data/support/ ({len(labelled)} sentences; guide in GUIDE.md). Fitted on train "
             f"({model.fitted.get('train_claims')} claims), cuts chosen on dev, reported on test (two EISs train "
             "never saw). Word overlap: the share of the sentence's content words its passage holds (a response: its "
             "claim sentence with the smallest share, as the checker takes its least supported claim), "
             "its cut chosen on the same dev split (best balanced accuracy), as is the checker's score cut.", ""]
    rows = ev.unique(rows, passage_of)  # a quote repeated inside a programmatic change counts once
    lines += [f"Cuts chosen on dev: ✓ at 'full' ≥ {model.cuts['supported']}, ◐ at 'any' ≥ {model.cuts['partly']}, "
              f"✗ at 'any' < {model.cuts['unsupported']}, ○ between. Rules: "
              + "; ".join(f"{k}: {v}" for k, v in support_model.RULES.items()) + ".", "",
              "Sentence-level figures count each sentence once per passage and label; intervals treat sentences as "
              "independent (several come from one passage), so read them as a little narrow.", ""]
    for level in ("sentence", "response"):
        if level == "sentence":
            dev = [r for r in rows if r.split == "dev" and r.label in ev.CLAIM_LABELS]
            test = [r for r in rows if r.split == "test" and r.label in ev.CLAIM_LABELS]
            get = {"checker": lambda xs: [ev.checker_score(r) for r in xs],
                   "word overlap": lambda xs: [1 - r.overlap for r in xs]}
            truth = lambda xs: [r.unsupported for r in xs]  # noqa: E731
        else:
            resp = ev.responses(rows, answers, passage_of)
            dev = [r for r in resp if r["split"] == "dev"]
            test = [r for r in resp if r["split"] == "test"]
            get = {"checker": lambda xs: [r["checker"] for r in xs], "word overlap": lambda xs: [r["baseline"] for r in xs]}
            truth = lambda xs: [r["unsupported"] for r in xs]  # noqa: E731
        lines += [f"**{level} level, test split** (n = {len(test)}, of which unsupported {sum(truth(test))})", "",
                  "| method | balanced accuracy | precision (unsupported) | recall (unsupported) | AUROC |",
                  "|---|---|---|---|---|"]
        for name, fn in get.items():
            cut = ev.best_cut(fn(dev), truth(dev))
            rep = ev.report(fn(test), truth(test), cut)
            lines.append(f"| {name} | {_cell(rep['balanced_accuracy'])} | {_cell(rep['precision'])} | "
                         f"{_cell(rep['recall'])} | {_cell(rep['auroc'])} |")
        lines.append("")
        if level == "sentence":
            cuts = {name: ev.best_cut(fn(dev), truth(dev)) for name, fn in get.items()}
            real = [r for r in test if r.source in ("smollm2", "extractive")]
            lines += ["**Real model answers only** (SmolLM2 and the extractive baseline, test split, sentence level; the "
                      "same cuts):", "",
                      "| method | balanced accuracy | precision (unsupported) | recall (unsupported) | AUROC |",
                      "|---|---|---|---|---|"]
            for name, fn in get.items():
                rep = ev.report(fn(real), truth(real), cuts[name])
                lines.append(f"| {name} | {_cell(rep['balanced_accuracy'])} | {_cell(rep['precision'])} | "
                             f"{_cell(rep['recall'])} | {_cell(rep['auroc'])} |")
            lines += ["", "By source (test, sentence level): the share each method gets right at its cut "
                      "(one label per source, so no balanced accuracy):", "",
                      "| source | n | unsupported | checker | word overlap |", "|---|---|---|---|---|"]
            for src in sorted({r.source for r in test}):
                xs = [r for r in test if r.source == src]
                figs = []
                for name, fn in get.items():
                    right = [(s >= cuts[name]) == t for s, t in zip(fn(xs), truth(xs), strict=True)]
                    figs.append(_pct(ev._fig(sum(right) / len(right), len(right),
                                             ev.wilson_interval(sum(right), len(right)))))
                lines.append(f"| `{src}` | {len(xs)} | {sum(truth(xs))} | {figs[0]} | {figs[1]} |")
            lines.append("")
    test_rows = [r for r in rows if r.split == "test"]
    marks = ev.marks_on(test_rows)
    real = ev.marks_on([r for r in test_rows if r.source in ("smollm2", "extractive")])
    smol = ev.marks_on([r for r in test_rows if r.source == "smollm2"])
    lines += ["**The marks on test** (all sources / real model answers / SmolLM2's alone):", "",
              "| what | all | SmolLM2 and extractive answers | SmolLM2 answers |", "|---|---|---|---|",
              f"| ✓ right (label supported) | {_pct(marks['supported'])} | {_pct(real['supported'])} | "
              f"{_pct(smol['supported'])} |",
              f"| ◐ holds at least part | {_pct(marks['partly supported'])} | {_pct(real['partly supported'])} | "
              f"{_pct(smol['partly supported'])} |",
              f"| ✗ catches the unsupported (recall) | {_pct(marks['unsupported'])} | {_pct(real['unsupported'])} | "
              f"{_pct(smol['unsupported'])} |",
              f"| claims left ○ not checked | {_pct(marks['not checked'])} | {_pct(real['not checked'])} | "
              f"{_pct(smol['not checked'])} |",
              f"| one number changed: not ✓ | {_pct(marks['changed number not ✓'])} | — | — |", ""]
    det = ev.claim_detection(test_rows)
    lines += [f"Sentences making no claim, set aside by rule (test): precision {_pct(det['precision'])}, "
              f"recall {_pct(det['recall'])}.", ""]

    # time per sentence: every test response checked cold (no sentence embedded before)
    check("A warm-up sentence about nothing in particular.", [Passage(1, "Another warm-up sentence here.")])
    per: list[float] = []
    for rid in {r.response_id for r in test_rows}:
        support_signals._VECTORS.clear()
        t0 = time.perf_counter()
        rep = check(answers[rid], [Passage(1, passage_of[rid], "the passage")])
        n = max(len(rep.sentences), 1)
        per.append((time.perf_counter() - t0) * 1000 / n)
    lines += [f"Time per sentence, each test response checked cold (its passage never embedded before): median "
              f"{statistics.median(per):.1f} ms, p90 {sorted(per)[int(0.9 * len(per))]:.1f} ms over {len(per)} "
              "responses (budget: 50 ms median).", ""]
    print("\n".join(lines))
    if fit:
        d = json.loads(support_model.MODEL_FILE.read_text(encoding="utf-8"))
        d["measured"] = {k: v for k, v in marks.items() if k != "changed number not ✓"}
        d["measured_on"] = f"test split of data/support/ (two EISs the model never saw), {date.today().isoformat()}"
        support_model.MODEL_FILE.write_text(json.dumps(d, indent=1) + "\n", encoding="utf-8")
        old = README.read_text(encoding="utf-8") if README.exists() else "# Benchmarks\n\n"
        head = old.split("## Support checker (issue 36)")[0].rstrip() + "\n\n"
        README.write_text(head + "\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
