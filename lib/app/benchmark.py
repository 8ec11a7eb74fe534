"""The Benchmark results use case: one stored run read into what the Results tab lays out and the command line
prints. The rules live here (which comparisons read as real, when a closed table is too small to read, what the
manifest lists, what a download holds); the page only draws them."""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from lib.core import QUOTES_ONLY, config, csv_safe
from lib.core.json_types import JSON
from lib.core.stats import MIN_N, Majority, MeanCI
from lib.core.text import readable_name, without_notes
from lib.evaluation.benchmark import (
    Rescored,
    RunConfig,
    RunSummary,
    StoredRun,
    answers,
    list_runs,
    load_run,
    report,
    rescore,
    summarize,
)
from lib.evaluation.metrics import STATUS_WORDS
from lib.qa import MODE_LABELS, VERDICT_SOURCES, context_passage
from lib.qa.manifest import Manifest
from lib.qa.services import Corpus

if TYPE_CHECKING:
    import pandas as pd
    from sqlalchemy.engine import Engine

ClosedState = Literal["table", "too_few", "no_verdict"]


@dataclass(frozen=True)
class PairedTally:
    """Paired comparisons on the same items, counted by what they can claim."""

    total: int
    beyond_noise: int
    within_noise: int
    too_few: int

    def sentence(self) -> str:
        return (f"{self.total} paired comparison(s) on the same items: {self.beyond_noise} show a difference beyond "
                f"noise, {self.within_noise} within noise"
                + (f", {self.too_few} with too few items to compare (fewer than {report.MIN_TEST_N})"
                   if self.too_few else ""))


def tally_tests(tests: list[report.PairedTest]) -> PairedTally:
    """A comparison with fewer than MIN_TEST_N paired items claims nothing either way; of the rest, those not
    within noise (after Holm's correction) show a real difference."""
    few = sum(1 for t in tests if t.n < report.MIN_TEST_N)
    real = sum(1 for t in tests if t.n >= report.MIN_TEST_N and not t.within_noise)
    return PairedTally(total=len(tests), beyond_noise=real, within_noise=len(tests) - real - few, too_few=few)


def _options_text(o: Mapping[str, JSON]) -> str:
    t = o.get("temperature")
    window = o.get("context_window")
    return (f"temperature {f'{t:g}' if isinstance(t, int | float) else 'not sent (model default or no sampling)'}, "
            f"window {f'{window:,}' if isinstance(window, int) else '—'} tokens"
            + (f", seed {o['seed']}" if o.get("seed") is not None else ""))


def manifest_rows(run_id: str, created_at: str, manifest: Manifest | None) -> list[tuple[str, str | None]]:
    """The run's configuration as (what, value) rows: what a reader needs to reproduce it; None where the run did
    not record a value (an older run), never the word "None"."""
    man = manifest or Manifest("bench")
    models = man.models
    return [("run id (for `python -m lib bench --run-id`)", run_id),
            ("started", str(created_at or "")[:19]),
            ("models", ", ".join(str(x["id"]) for x in models)),
            *((f"options sent to {x['id']}", _options_text(o if isinstance(o := x.get("options"), Mapping) else {}))
              for x in models),
            ("judge", str((man.judge or {}).get("id", "none (token-F1 proxy)"))),
            ("embedder", man.embedder), ("app version", man.app_version),
            *((f"document {d.name}", f"sha256 {str(d.sha256)[:12]}…, chunks {d.chunk_size}/"
               f"{d.chunk_overlap} tokens, index generation {d.gen}") for d in man.documents),
            *((f"setting {k}", v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))
              for k, v in man.settings.items()
              if v is not None),
            *((f"prompt {k}", f"sha256 {v}") for k, v in man.prompts.items())]


@dataclass(frozen=True)
class ClosedView:
    """The closed-accuracy table and whether it can be read: ``table`` (show it), ``too_few`` (every cell under
    MIN_N: one line, the table on request) or ``no_verdict`` (no closed score: the closed answers came with no yes
    or no)."""

    state: ClosedState
    table: pd.DataFrame
    note: str


def closed_view(comp: pd.DataFrame, table: pd.DataFrame, no_verdict: int) -> ClosedView:
    closed = comp[comp["kind"] == "closed"]
    if closed.empty and no_verdict:
        return ClosedView("no_verdict", table, f"No closed accuracy: {no_verdict} closed answer(s) came with no "
                          "verdict (quotes only: the extractive baseline cannot decide yes or no). They are counted "
                          "apart, never scored wrong.")
    if not closed.empty and closed["small"].all():
        return ClosedView("too_few", table, f"Too few closed items to read: {int(closed['n'].max())} per cell "
                          f"(fewer than {MIN_N}). Load a set with more closed questions for an accuracy worth comparing.")
    return ClosedView("table", table, "")


@dataclass(frozen=True)
class RunResults:
    """Everything the Results tab shows of one run, read once."""

    run_id: str
    created_at: str
    config: RunConfig
    summary: RunSummary
    answers: pd.DataFrame  # one row per answer (report.answers_frame)
    common: list[str]  # items answered in every model × mode cell: the comparisons' items
    comparison: pd.DataFrame  # mean, interval and n per model × mode × kind on the common items
    tests: list[report.PairedTest]
    tally: PairedTally
    type_mode: pd.DataFrame
    position: pd.DataFrame
    hits: dict[str, MeanCI]  # retrieval hit@k per RAG model
    majority: Majority | None  # the majority-answer baseline on the common closed items

    @property
    def proxy(self) -> bool:
        """Open questions scored with the offline token-F1 proxy, not RAGAS: not comparable with published figures."""
        return not report.published_comparable(self.summary.metric)

    @property
    def type_mode_readable(self) -> bool:
        return not self.type_mode.empty and not self.type_mode["small"].all()


def run_list(engine: Engine | None = None) -> list[StoredRun]:
    """Stored runs, newest first."""
    return list_runs(engine)


def run_results(run_id: str, engine: Engine | None = None) -> RunResults | None:
    """One run read for display; None when no such run."""
    import pandas as pd  # heavy: imported on first use, off start-up
    runs = {r.run_id: r for r in list_runs(engine)}
    stored = load_run(run_id, engine)
    if run_id not in runs or stored is None:
        return None
    items, cfg = stored
    summary = summarize(run_id, engine)
    df = report.answers_frame(run_id, engine)
    rows = answers(run_id, engine)
    common = report.comparable_items(items, cfg, rows) if not df.empty else []
    empty = pd.DataFrame(columns=["model", "mode", "kind", "score", "ci_low", "ci_high", "n", "small"])
    comp = report.comparison_frame(df, common) if not df.empty else empty
    tests = report.paired_tests(df, common, cfg.models, cfg.modes) if not df.empty else []
    keep = set(common)
    return RunResults(
        run_id=run_id, created_at=runs[run_id].created_at, config=runs[run_id].config,
        summary=summary, answers=df, common=common, comparison=comp, tests=tests, tally=tally_tests(tests),
        type_mode=report.by_type_mode(df, common) if not df.empty else empty,
        position=report.by_position(df, common) if not df.empty else empty,
        hits=report.retrieval_detail(cfg, rows) if not df.empty else {},
        majority=report.majority([it for it in items if it.id in keep]) if not df.empty else None)


def item_set_name(source: str) -> str:
    """An item set as a reader calls it: the shipped samples by name; generated items by their document and time
    ("generated:eis_X.pdf:2026-12-06 01:55" → "Items generated from X, 2026-12-06 01:55"); a file by its name as
    uploaded ("my_items.csv"); anything else as stored."""
    if source in config.SAMPLE_SET_NAMES:
        return config.SAMPLE_SET_NAMES[source]
    generated = re.fullmatch(r"generated:(.+?)(?::(\d{4}-\d\d-\d\d \d\d:\d\d))?", source)
    if generated:
        doc, when = generated.groups()
        return f"Items generated from {readable_name(doc)}" + (f", {when}" if when else "")
    return source


def status_words(status: str | None) -> str | None:
    """A score's status as words ("no_verdict" → "no yes/no given")."""
    return STATUS_WORDS.get(status, status) if status else status


SHORT_MODES = {"rag": "RAG"}  # the items table's context names: the others are short already


def verdict_words(verdict: object, source: object) -> str:
    """An answer's yes/no verdict and what it came from, in words ("yes, read by the text parser"); empty for none."""
    if not isinstance(verdict, str) or not verdict:
        return ""
    if verdict == QUOTES_ONLY or source == "none":  # the baseline quotes and gives no yes/no
        return VERDICT_SOURCES["none"]
    how = VERDICT_SOURCES.get(source) if isinstance(source, str) else None
    return f"{verdict}, from {how}" if how else verdict


def item_table(df: pd.DataFrame, model_name: Callable[[str], str]) -> pd.DataFrame:
    """Every answer of a run as one plain table that fits the page: names for ids, a score or, where there is
    none, why in words; '—' for no value. What the verdict came from, and the whole answer, are on its card."""
    import pandas as pd  # heavy: imported on first use, off start-up
    view = df[["item_id", "question_type", "model", "mode", "verdict", "answer"]].copy()
    view["model"] = view["model"].map(lambda m: without_notes(model_name(m)))
    view["mode"] = view["mode"].map(lambda m: SHORT_MODES.get(m) or MODE_LABELS.get(m, m))
    score = pd.to_numeric(df["score"], errors="coerce")  # all None: a run with no score yet
    why = [STATUS_WORDS.get(done, done) if done != "ok" else status_words(scored)
           for done, scored in zip(df["status"], df["score_status"], strict=True)]
    # text, as the rest: one type per column
    view.insert(4, "score", [f"{x:.2f}" if pd.notna(x) else (w or "—") for x, w in zip(score, why, strict=True)])
    view = view.astype(object).where(view.notna(), "—")
    view.columns = ["Item", "Question type", "Model", "Context", "Score", "Verdict", "Answer"]
    return view


def answers_csv(res: RunResults) -> str:
    """The answers download: every column but the gold passage, metrics and contexts as JSON, cells safe for a
    spreadsheet."""
    export = res.answers.drop(columns=["gold_context"]).copy()
    export["metrics"] = export["metrics"].map(lambda m: json.dumps(m, ensure_ascii=False))  # as written, like the rest
    export["contexts"] = export["contexts"].map(lambda cs: context_passage.to_json(cs, ensure_ascii=False))
    return csv_safe.to_csv(export)


def run_json(res: RunResults) -> str:
    """The whole-run download: configuration, summary and answers."""
    return json.dumps({"run_id": res.run_id, "created_at": res.created_at, "config": res.config.as_dict(),
                       "summary": res.summary.cli_dict(),
                       "answers": [r | {"contexts": [c.as_dict() for c in r["contexts"]]} for r in
                                   res.answers.drop(columns=["gold_context"]).to_dict(orient="records")]},
                      default=str, indent=1)


def rescore_answers(run_id: str, judge: str | None, services: Corpus | None) -> Rescored:
    """Score a run's stored answers again (another judge, or the current parser); no answer is generated again.
    Returns the counts of what was re-scored (the page reads the run again to show the new scores)."""
    return rescore(run_id, judge, services=services)


def rescore_run(run_id: str, judge: str | None, services: Corpus | None) -> dict[str, Any]:
    """``rescore_answers``, then the run's summary with those counts: what the command line prints."""
    counts = rescore_answers(run_id, judge, services)
    return summarize(run_id).cli_dict() | counts.as_dict()
