"""Cold start of the command line: wall time of `python -m lib CMD` (interpreter start included) for the commands
that only read the store or the registry, on a store holding one indexed document.

    python bench/startup.py [--repeats 5]

Each command runs --repeats times in a fresh process; the median is reported, and whether torch or
sentence_transformers was imported on its path (`-X importtime`). Goal: under 2 s, with no torch import.
The baseline in the same run is `python -c "import sentence_transformers"` (what every command paid before the
embedder, Chroma, PyMuPDF and the splitter were loaded on first use). The last line of stdout is JSON:
{"seconds": {cmd: median}, "torch_imported": {cmd: bool}, "baseline_import_s": …}.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if out.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
    return elapsed, out.stderr


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="nepaqa_startup_"))
    env = {**os.environ, "NEPAQA_HOME": str(home)}
    from lib.core import config

    subprocess.run([sys.executable, "-m", "lib", "ingest", str(config.SAMPLE_PDF)], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    answers = home / "answers.txt"
    answers.write_text("Yes, the site was selected.\nNo negative impacts are expected.\nnegative impacts\n")
    labels = home / "labels.csv"
    labels.write_text("item_id,annotator,label,value\n" + "".join(
        f"q{i},{a},answer_correct,{'yes' if (i + j) % 3 else 'no'}\n" for i in range(20) for j, a in enumerate("ab")))
    commands = {"docs": ["docs"], "models": ["models"], "check": ["check"], "verdict": ["verdict", "--file", str(answers)],
                "agreement": ["agreement", str(labels)]}
    seconds, torch_seen = {}, {}
    for name, argv in commands.items():
        runs = [timed([sys.executable, "-m", "lib", *argv], env)[0] for _ in range(args.repeats)]
        seconds[name] = round(statistics.median(runs), 2)
        _, trace = timed([sys.executable, "-X", "importtime", "-m", "lib", *argv], env)
        torch_seen[name] = any(line.rstrip().endswith(("| torch", "| sentence_transformers")) for line in trace.splitlines())
        print(f"[startup] {name:9} median {seconds[name]:.2f} s over {args.repeats} runs; torch imported: "
              f"{torch_seen[name]}", file=sys.stderr, flush=True)
    base = [timed([sys.executable, "-c", "import sentence_transformers"], env)[0] for _ in range(args.repeats)]
    baseline = round(statistics.median(base), 2)
    print(f"[baseline] import sentence_transformers alone: median {baseline:.2f} s", file=sys.stderr)
    print(json.dumps({"seconds": seconds, "torch_imported": torch_seen, "baseline_import_s": baseline,
                      "repeats": args.repeats}))


if __name__ == "__main__":
    main()
