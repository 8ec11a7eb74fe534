"""Tables behind the Benchmark page and the CLI summary: pure functions over a run's stored answers.

Rules: closed accuracy and open answer correctness are never averaged together; every figure carries its n and
a 95% bootstrap interval; comparisons across modes or models use the same items (paired), and say how many
were left out and why; the published Table 2 is shown only beside results scored the same way (a judge model).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy.engine import Engine

from lib.core.json_types import JSONObject
from lib.core.stats import inference as stats
from lib.evaluation.benchmark.dataset import Item
from lib.evaluation.benchmark.runs import MetricScore, RunConfig, StoredAnswer, answers, load_run
from lib.evaluation.benchmark.scoring import METRIC_LABELS, REFERENCE_FREE, headline_metric, public_metric_name
from lib.qa.contexts import MODE_LABELS
from lib.qa.support import marks_line, read_marks

if TYPE_CHECKING:
    import pandas as pd

# NEPAQuAD paper (Phan et al. 2024), Table 2: RAGAS answer correctness (%) by model and context, over the
# whole NEPAQuAD1.0 benchmark (n = 1,599 questions of ten types, 49% closed). Published figures.
PUBLISHED_TABLE2_ROWS = (
    ("GPT-4", 67.00, 63.70, 74.36, 76.60),
    ("Claude", 64.53, 66.46, 75.16, 76.84),
    ("Gemini", 62.84, 65.90, 75.46, 81.15),
    ("Mistral", 64.95, 61.81, 72.88, 75.34),
    ("Llama3.1", 66.35, 59.52, 74.01, 72.73),
)


def published_table2() -> pd.DataFrame:
    """The published Table 2 as a frame (model, none, pdf, rag, gold)."""
    import pandas as pd  # heavy: imported on first use, off start-up

    return pd.DataFrame(PUBLISHED_TABLE2_ROWS, columns=["model", "none", "pdf", "rag", "gold"])


PUBLISHED_N = 1599
PUBLISHED_LABEL = ("Published: NEPAQuAD Table 2 (Phan et al. 2024), RAGAS answer correctness %, "
                   f"n = {PUBLISHED_N:,} questions per cell (all ten types)")


def published_comparable(metric: str) -> bool:
    """Only a judge-scored run (RAGAS answer correctness) may be shown beside the published figures."""
    return public_metric_name(metric) == "ragas_answer_correctness"


def _kind(question_type: str | None) -> str:
    return "closed" if question_type == "closed" else "open"


def headline(row: StoredAnswer, qtype: str | None, metric: str) -> tuple[float | None, str | None]:
    """(value, status) of the answer's score: closed accuracy for closed items, the run's open metric else."""
    m = row.metrics.get("closed_accuracy" if _kind(qtype) == "closed" else metric)
    return (m.value, m.status) if m else (None, None)


# ----- the CLI summary ------------------------------------------------------------------------------
@dataclass(frozen=True)
class CellScores:
    """One model × mode cell of a run, over its own answers: closed accuracy and open correctness apart, each with
    its 95% interval and n, the open metric's name, and the cell's counts of answers, failures and non-scores."""

    closed_accuracy: float | None
    closed_accuracy_ci95: list[float] | None
    n_closed: int
    open_correctness: float | None
    open_correctness_ci95: list[float] | None
    n_open: int
    metric: str  # the open metric, by its public name
    correctness: float | None  # the open correctness again, under the name older readers of the JSON use
    n: int  # closed and open scores together
    answers: int
    failures: int
    judge_failures: int
    no_statements: int
    unclear: int
    no_verdict: int  # closed answers with no yes or no by design (quotes only): not scored

    def as_dict(self) -> JSONObject:
        return asdict(self)


@dataclass(frozen=True)
class FreeScore:
    """A reference-free score over a cell's answers it applied to: mean, 95% interval and n, and how many answers
    it applied to but gave no value (nothing to check, no citation, a judge failure), by status."""

    mean: float | None
    ci95: list[float] | None
    n: int
    not_scored: dict[str, int]

    def as_dict(self) -> JSONObject:
        return asdict(self)


def cell_scores(items: Sequence[Item], cfg: RunConfig, rows: Sequence[StoredAnswer]) -> dict[str, dict[str, CellScores]]:
    """Per model and mode, over that cell's own answers: closed accuracy and open correctness apart, each
    with n and a 95% bootstrap interval, and the cell's failures and non-scores."""
    qtype = {it.id: it.question_type for it in items}
    metric = headline_metric(cfg.judge)
    vals: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for r in rows:
        key = (r.model, r.mode)
        if r.status != "ok":
            counts[key]["failures"] += 1
            continue
        counts[key]["answers"] += 1
        v, st = headline(r, qtype.get(r.item_id), metric)
        if st in ("judge_failed", "no_statements", "unclear", "no_verdict"):
            counts[key][st] += 1
        if v is not None:
            vals[(*key, _kind(qtype.get(r.item_id)))].append(v)
    out: dict[str, dict[str, CellScores]] = {}
    for model in cfg.models:
        out[model] = {}
        for mode in cfg.modes:
            cl, op = stats.mean_ci(vals[(model, mode, "closed")]), stats.mean_ci(vals[(model, mode, "open")])
            c = counts[(model, mode)]
            out[model][mode] = CellScores(
                closed_accuracy=cl.mean, closed_accuracy_ci95=cl.ci95, n_closed=cl.n,
                open_correctness=op.mean, open_correctness_ci95=op.ci95, n_open=op.n,
                metric=public_metric_name(metric), correctness=op.mean, n=cl.n + op.n,
                answers=c["answers"], failures=c["failures"], judge_failures=c["judge_failed"],
                no_statements=c["no_statements"], unclear=c["unclear"], no_verdict=c["no_verdict"])
    return out


def reference_free_cells(cfg: RunConfig, rows: Sequence[StoredAnswer]) -> dict[str, dict[str, dict[str, FreeScore]]]:
    """Per model and mode, each reference-free score (faithfulness and citation precision by each checker, context
    precision and recall) over that cell's answers it applied to: mean, 95% interval, n, and how many answers it
    applied to but gave no value (nothing to check, no citation, a judge failure), by status."""
    vals: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    missing: dict[tuple[str, str, str], Counter] = defaultdict(Counter)
    for r in rows:
        if r.status != "ok":
            continue
        for name in REFERENCE_FREE:
            m = r.metrics.get(name)
            if not m:
                continue
            key = (r.model, r.mode, name)
            if m.value is None:
                missing[key][m.status] += 1
            else:
                vals[key].append(m.value)
    out: dict[str, dict[str, dict[str, FreeScore]]] = {}
    for model in cfg.models:
        out[model] = {}
        for mode in cfg.modes:
            cell = {}
            for name in REFERENCE_FREE:
                key = (model, mode, name)
                if key in vals or key in missing:
                    ci = stats.mean_ci(vals[key])
                    cell[name] = FreeScore(ci.mean, ci.ci95, ci.n, dict(missing[key]))
            out[model][mode] = cell
    return out


def status_counts(rows: Sequence[StoredAnswer], metric: str) -> Counter[str]:
    out: Counter[str] = Counter()
    for r in rows:
        if r.status != "ok":
            continue
        for name in ("closed_accuracy", metric):
            m = r.metrics.get(name)
            if m:
                out[m.status] += 1
    return out


def _hits(rows: Sequence[StoredAnswer]) -> dict[str, list[float]]:
    """Per model, the retrieval hit of each answered item that has one."""
    hits: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        m = r.metrics.get("retrieval_hit")
        if r.status == "ok" and m and m.value is not None:
            hits[r.model].append(m.value)
    return hits


def retrieval_summary(cfg: RunConfig, rows: Sequence[StoredAnswer]) -> dict[str, float | None]:
    hits = _hits(rows)
    return {m: stats.mean_ci(hits[m]).mean if hits.get(m) else None for m in cfg.models}


def retrieval_detail(cfg: RunConfig, rows: Sequence[StoredAnswer]) -> dict[str, stats.MeanCI]:
    hits = _hits(rows)
    return {m: stats.mean_ci(hits[m]) for m in cfg.models if hits.get(m)}


def majority(items: Sequence[Item]) -> stats.Majority | None:
    truths = [it.answer.strip().lower() for it in items if it.question_type == "closed"
              and it.answer.strip().lower() in ("yes", "no")]
    return stats.majority_baseline(truths) if truths else None


def comparable_items(items: Sequence[Item], cfg: RunConfig, rows: Sequence[StoredAnswer]) -> list[str]:
    """Items with a scored answer in every requested (model, mode) cell: the only ones comparisons use."""
    qtype = {it.id: it.question_type for it in items}
    metric = headline_metric(cfg.judge)
    have: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for r in rows:
        if r.status == "ok" and headline(r, qtype.get(r.item_id), metric)[0] is not None:
            have[r.item_id].add((r.model, r.mode))
    need = {(m, mo) for m in cfg.models for mo in cfg.modes}
    return [it.id for it in items if need <= have[it.id]]


@dataclass(frozen=True)
class Comparison:
    """Which items the comparisons use: those answered and scored in every model × mode cell, and why the others
    are left out (reason → count)."""

    items: int
    left_out: int
    reasons: dict[str, int] = field(default_factory=dict)


def comparison_info(items: Sequence[Item], cfg: RunConfig, rows: Sequence[StoredAnswer]) -> Comparison:
    common = set(comparable_items(items, cfg, rows))
    no_doc = set(cfg.no_doc_items) if any(m in ("pdf", "rag") for m in cfg.modes) else set()
    left = [it.id for it in items if it.id not in common]
    quotes_only = {r.item_id for r in rows if r.status == "ok"
                   and (m := r.metrics.get("closed_accuracy")) is not None and m.status == "no_verdict"}
    reasons = Counter("document not indexed, so no pdf/rag answer" if i in no_doc
                      else "a model gave no verdict (quotes only), so nothing to compare" if i in quotes_only
                      else "not scored in every cell (answer failed, judge failed, or not run yet)" for i in left)
    return Comparison(len(common), len(left), dict(reasons))


# ----- the page's tables ----------------------------------------------------------------------------
def answers_frame(run_id: str, engine: Engine | None = None) -> pd.DataFrame:
    """One row per stored answer with the item's fields and its headline score (closed accuracy for closed
    items, the run's open metric else); ``contexts`` holds the answer's ``ContextPassage``s, written out as JSON
    by the downloads."""
    import pandas as pd  # heavy: imported on first use, off start-up

    stored = load_run(run_id, engine)
    if stored is None:
        return pd.DataFrame()
    items, cfg = stored
    rows = answers(run_id, engine)
    if not rows:
        return pd.DataFrame()
    metric = headline_metric(cfg.judge)
    by_id = {it.id: it for it in items}
    out = []
    for r in rows:
        it = by_id.get(r.item_id)
        qtype = it.question_type if it else None
        v, st = headline(r, qtype, metric)
        out.append(r.as_dict() | {"contexts": r.contexts, "question_type": qtype, "kind": _kind(qtype), "position": (it.position if it else None) or "unknown",
                        "question": it.question if it else "", "expected": it.answer if it else "",
                        "gold_context": it.context if it else "", "page_number": it.page_number if it else None,
                        "score": v, "score_status": st if r.status == "ok" else "failed",
                        **_support_columns(r.metrics)})
    return pd.DataFrame(out)


def _support_columns(metrics: dict[str, MetricScore]) -> dict[str, Any]:
    """The offline support check of an answer as export columns: its verdict, summary and each sentence's mark."""
    m = metrics.get("faithfulness_offline")
    d = (m.details if m else None) or {}
    return {"support_verdict": d.get("verdict", ""), "support_summary": d.get("summary", ""),
            "support_marks": marks_line(read_marks(d.get("marks")))}


def _summarise(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean with n and 95% interval per group, over scored rows; ``small`` marks n < 5."""
    import pandas as pd  # heavy: imported on first use, off start-up

    s = df[(df["status"] == "ok") & df["score"].notna()]
    rows = []
    for key, g in s.groupby(keys):
        ci = stats.mean_ci(g["score"].astype(float).tolist())
        rows.append(dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
                    | {"score": ci.mean, "ci_low": ci.ci95[0] if ci.ci95 else None,
                       "ci_high": ci.ci95[1] if ci.ci95 else None, "n": ci.n, "small": stats.small_sample(ci.n)})
    return pd.DataFrame(rows, columns=[*keys, "score", "ci_low", "ci_high", "n", "small"])


def reference_free_frame(df: pd.DataFrame, common: Sequence[str], metrics: Sequence[str] = REFERENCE_FREE) -> pd.DataFrame:
    """Per model × mode × reference-free metric on the common items: mean, 95% interval and n over the answers it
    scored; ``judge_failed``, the answers a judge could not score (retried on resume); ``not_scored``, the others it
    applied to without a value (nothing to check, no citation). One metric per row: never averaged with another,
    nor with answer correctness."""
    import pandas as pd  # heavy: imported on first use, off start-up

    cols = ["model", "mode", "metric", "score", "ci_low", "ci_high", "n", "small", "judge_failed", "not_scored"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    keep = set(common)
    out = []
    s = df[(df["status"] == "ok") & df["item_id"].isin(keep)]
    for (model, mode), g in s.groupby(["model", "mode"]):
        for name in metrics:
            got = [m[name] for m in g["metrics"] if isinstance(m, dict) and name in m]
            if not got:
                continue
            ci = stats.mean_ci([x["value"] for x in got if x["value"] is not None])
            lo, hi = ci.ci95 or (None, None)  # no value in the cell: no interval either
            failed = sum(x["value"] is None and x["status"] == "judge_failed" for x in got)
            out.append({"model": model, "mode": mode, "metric": name, "score": ci.mean, "ci_low": lo,
                        "ci_high": hi, "n": ci.n, "small": stats.small_sample(ci.n), "judge_failed": failed,
                        "not_scored": sum(x["value"] is None for x in got) - failed})
    return pd.DataFrame(out, columns=cols)


def comparison_frame(df: pd.DataFrame, common: Sequence[str]) -> pd.DataFrame:
    """Per model × mode × kind on the common items only."""
    import pandas as pd  # heavy: imported on first use, off start-up

    if df.empty:
        return _summarise(df.assign(score=[]), ["model", "mode", "kind"]) if "status" in df else pd.DataFrame()
    return _summarise(df[df["item_id"].isin(set(common))], ["model", "mode", "kind"])


def by_type_mode(df: pd.DataFrame, common: Sequence[str]) -> pd.DataFrame:
    return _summarise(df[df["item_id"].isin(set(common))], ["model", "question_type", "mode"])


def by_position(df: pd.DataFrame, common: Sequence[str]) -> pd.DataFrame:
    return _summarise(df[df["item_id"].isin(set(common))], ["model", "mode", "kind", "position"])


@dataclass
class PairedTest:
    """One paired comparison on the same items: two systems (model, mode), closed accuracy (McNemar) or open score
    (paired bootstrap). ``within_noise``: the difference is not told from noise (after Holm's correction, once
    ``holm`` has run)."""

    kind: str  # closed | open
    a: tuple[str, str]  # (model, mode)
    b: tuple[str, str]
    test: str  # the test's name, for the sentence
    n: int  # paired items
    diff: float  # a minus b
    p_value: float
    within_noise: bool
    diff_ci95: tuple[float, float] | None = None  # the bootstrap's interval (open scores)
    p_adjusted: float | None = None  # Holm-adjusted, over the family


def paired_tests(df: pd.DataFrame, common: Sequence[str], models: Sequence[str],
                 modes: Sequence[str]) -> list[PairedTest]:
    """Each pair of modes for one model, and each pair of models in one mode, on the same items: McNemar for
    closed accuracy, paired bootstrap for open correctness. ``within_noise`` says when a difference is noise."""
    s = df[(df["status"] == "ok") & df["item_id"].isin(set(common))]
    if s.empty:
        return []
    pivot = s.pivot_table(index=["item_id", "kind"], columns=["model", "mode"], values="score", aggfunc="first")
    pairs = [((m, a), (m, b)) for m in models for a, b in combinations(modes, 2)]
    pairs += [((a, mo), (b, mo)) for mo in modes for a, b in combinations(models, 2)]
    out = []
    for left, right in pairs:
        if left not in pivot.columns or right not in pivot.columns:
            continue
        for kind in ("closed", "open"):
            sub = pivot.xs(kind, level="kind") if kind in pivot.index.get_level_values("kind") else None
            if sub is None:
                continue
            both = sub[[left, right]].dropna()
            if both.empty:
                continue
            a, b = both[left].tolist(), both[right].tolist()
            t: stats.McNemar | stats.PairedBootstrap
            if kind == "closed":
                t = stats.mcnemar_test([int(x) for x in a], [int(x) for x in b])
                diff, test = (t.acc_a or 0) - (t.acc_b or 0), "McNemar (exact)" if t.method == "exact" else "McNemar"
                ci = None
            else:
                t = stats.paired_bootstrap(a, b)
                diff, test, ci = t.diff or 0.0, "paired bootstrap", t.ci95  # both lists hold items: never None
            p = cast(float, t.p_value)  # never None: both lists hold items
            out.append(PairedTest(kind, left, right, test, t.n, round(diff, 4), p, t.within_noise,
                                  None if ci is None else (ci[0], ci[1])))
    return holm(out)


def holm(tests: list[PairedTest], alpha: float = 0.05) -> list[PairedTest]:
    """Many comparisons at once: Holm's step-down correction (statsmodels) over the whole family, so a page of
    tests does not call noise a difference. ``within_noise`` then holds unless the adjusted p is below alpha."""
    if not tests:
        return tests
    from statsmodels.stats.multitest import multipletests  # heavy: imported on first use, off start-up

    adjusted = multipletests([t.p_value for t in tests], alpha=alpha, method="holm")[1]
    for t, p in zip(tests, adjusted, strict=True):
        t.p_adjusted = round(float(p), 4)
        t.within_noise = bool(t.within_noise or p >= alpha)
    return tests


MIN_TEST_N = 5  # fewer paired items than this: no claim either way


def describe_test(t: PairedTest, label: Callable[[str], str] = str) -> str:
    """The plain sentence the page shows for one paired comparison; below MIN_TEST_N items it says only that
    there are too few to compare (a p-value on 3 items is no evidence a reader should act on)."""
    (ma, mo_a), (mb, mo_b) = t.a, t.b
    mo_a, mo_b = MODE_LABELS.get(mo_a, mo_a), MODE_LABELS.get(mo_b, mo_b)
    a = f"{label(ma)} · {mo_a}" if ma != mb else mo_a
    b = f"{label(mb)} · {mo_b}" if ma != mb else mo_b
    who = f"{label(ma)}: " if ma == mb else f"{mo_a}: "
    what = "closed accuracy" if t.kind == "closed" else "open score"
    p = ("p < 0.0001" if t.p_value == 0 else f"p = {t.p_value:.3g}") + (
        f", Holm-adjusted {t.p_adjusted:.3g}" if t.p_adjusted is not None else "")
    if t.n < MIN_TEST_N:
        return (f"{who}{a} vs {b}, {what}: only {t.n} paired item(s), too few to compare "
                f"(difference {t.diff:+.2f}; run at least {MIN_TEST_N}).")
    if t.within_noise:
        return (f"{who}{a} vs {b}, {what}: difference {t.diff:+.2f} on {t.n} items is within noise "
                f"({t.test}, {p}).")
    better = a if t.diff > 0 else b
    return f"{who}{better} is better on {what} by {abs(t.diff):.2f} on {t.n} items ({t.test}, {p})."


def metric_label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric)
