"""The charts and tables the pages show, built here so pages only lay them out (and so they can be tested and
reused by the command line or a notebook). Benchmark scores carry their n and 95% interval, and cells with n < 5
are drawn grey and say so; the EnviroExam charts show per-course accuracy of runs whose question counts are in
the leaderboard and run tables beside them.

Functions take plain frames from lib/evaluation/benchmark/report.py, lib/evaluation/exam/ and lib/core/stats/agreement.py, plus a
``label`` function from model id to display name (the page's registry labels), and return Altair charts or
pandas frames.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from lib.core.stats.bradley_terry import PositionBias, Ratings, WinRate, left_share_ci, too_few_votes
from lib.core.stats.inference import MIN_N, Majority
from lib.qa.contexts import MODE_LABELS, MODES

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from lib.evaluation.benchmark.runs import RunConfig, StoredRun
    from lib.evaluation.exam import BoardRow, ExamRun

Label = Callable[[str], str]
P = ParamSpec("P")
C = TypeVar("C", bound="alt.TopLevelMixin | None")  # a chart, or None where there is nothing to draw
SMALL = f"n < {MIN_N}: too few to read"
POSITIONS = ["beginning", "middle", "end", "unknown"]
LEVELS = ["Bachelor", "Master", "Doctor"]


def whole_labels(fn: Callable[P, C]) -> Callable[P, C]:
    """Every chart shows its labels whole at any width: axis, legend and facet-header labels are never cut
    (``labelLimit=0``), and legends sit under the chart, where a long label has the chart's width."""
    @functools.wraps(fn)
    def build(*args: P.args, **kwargs: P.kwargs) -> C:
        chart = fn(*args, **kwargs)
        if chart is None:
            return chart
        return (chart.configure_axis(labelLimit=0, titleLimit=0)
                .configure_legend(labelLimit=0, titleLimit=0, orient="bottom", columns=1)
                .configure_header(labelLimit=0, titleLimit=0))
    return build


def ci_text(lo: float | None, hi: float | None) -> str:
    import pandas as pd  # heavy: imported on first use, off start-up

    return "—" if lo is None or pd.isna(lo) else f"{lo:.2f}–{hi:.2f}"


def _context(mode: str) -> str:
    return MODE_LABELS.get(mode, mode)


# ----- benchmark -------------------------------------------------------------------------------------------------
def score_table(frame: pd.DataFrame, kind: str, label: Label) -> pd.DataFrame:
    """One row per model × mode: mean score, 95% interval, n, and a note where n is too small."""
    import pandas as pd  # heavy: imported on first use, off start-up

    sub = frame[frame["kind"] == kind]
    return pd.DataFrame({
        "model": [label(m) for m in sub["model"]],
        "mode": [_context(m) for m in sub["mode"]],
        "score": [f"{v:.2f}" if v == v else "—" for v in sub["score"]],  # 2 decimals: the intervals are wider
        "95% interval": [ci_text(lo, hi) for lo, hi in zip(sub["ci_low"], sub["ci_high"], strict=True)],
        "n": sub["n"], "note": [SMALL if sm else "" for sm in sub["small"]],
    })


def reference_free_table(frame: pd.DataFrame, label: Label) -> pd.DataFrame:
    """One reference-free metric (the frame's rows of one metric) as a table: a row per model × mode with the score,
    its 95% interval, n, the answers it applied to that gave no value, and (for a judge's metric) its failures."""
    import pandas as pd  # heavy: imported on first use, off start-up

    judge = frame["metric"].str.contains("judge").any()
    rows = []
    for r in frame.itertuples():
        row = {"model": label(r.model), "mode": _context(r.mode),
               "score": "—" if pd.isna(r.score) else f"{float(r.score):.2f}",
               "95% interval": ci_text(r.ci_low, r.ci_high), "n": int(r.n), "no value": int(r.not_scored)}
        if judge:
            row["judge failed"] = int(r.judge_failed)
        row["note"] = SMALL if r.small else ""
        rows.append(row)
    return pd.DataFrame(rows)


def majority_row(mb: Majority) -> pd.DataFrame:
    """The majority baseline as a row of the closed-accuracy table."""
    import pandas as pd  # heavy: imported on first use, off start-up

    return pd.DataFrame([{"model": f"Majority baseline (always '{mb.answer}')", "mode": "—",
                          "score": f"{mb.accuracy:.2f}", "95% interval": ci_text(*(mb.ci95 or (None, None))), "n": mb.n,
                          "note": "answers the more common gold answer"}])


@whole_labels
def score_bars(frame: pd.DataFrame, title: str, label: Label) -> alt.FacetChart:
    """Bars of the mean per context mode, one panel per model, with 95% interval rules; grey where n < 5."""
    import altair as alt  # heavy: imported on first use, off start-up

    frame = frame.assign(label=frame["model"].map(label), context=frame["mode"].map(_context),
                         reading=frame["small"].map(lambda sm: SMALL if sm else "n ≥ 5"))
    base = alt.Chart(frame).encode(x=alt.X("context:N", sort=[MODE_LABELS[m] for m in MODES], title=None))
    bars = base.mark_bar().encode(
        y=alt.Y("score:Q", scale=alt.Scale(domain=[0, 1]), title=None),  # named in the title: a facet's side
        # title was drawn outside the chart's area in a narrow column
        color=alt.Color("reading:N", scale=alt.Scale(domain=["n ≥ 5", SMALL], range=["#2e7d32", "#c8c8c8"]),
                        title=None),
        tooltip=["label", "context", "score", "ci_low", "ci_high", "n", "reading"])
    rules = base.mark_rule().encode(y="ci_low:Q", y2="ci_high:Q")
    return alt.layer(bars, rules).properties(width=170).facet(column=alt.Column("label:N", title=None)).properties(
        title=title)


@whole_labels
def type_mode_heatmap(tm: pd.DataFrame, label: Label) -> alt.FacetChart:
    """Question type × context mode, one panel per model; each cell shows its score and n."""
    import altair as alt  # heavy: imported on first use, off start-up

    tm = tm.assign(label=tm["model"].map(label), reading=tm["small"].map(lambda sm: SMALL if sm else ""),
                   context=tm["mode"].map(_context),
                   cell=[f"{v:.2f} (n={n})" for v, n in zip(tm["score"], tm["n"], strict=True)])
    heat = alt.Chart(tm).encode(x=alt.X("context:N", sort=[MODE_LABELS[m] for m in MODES], title=None),
                                y=alt.Y("question_type:N", title=None))
    rects = heat.mark_rect(stroke="white").encode(
        color=alt.condition("datum.small", alt.value("#e0e0e0"),
                            alt.Color("score:Q", scale=alt.Scale(domain=[0, 1], scheme="greens"))),
        tooltip=["label", "question_type", "context", "score", "ci_low", "ci_high", "n", "reading"])
    return alt.layer(rects, heat.mark_text(fontSize=10).encode(text="cell:N")).properties(width=220).facet(
        facet=alt.Facet("label:N", title=None), columns=2).properties(
        title="Question type × mode (closed: accuracy; others: open score; grey: n < 5, too few to read)")


@whole_labels
def position_lines(pos: pd.DataFrame, label: Label) -> alt.Chart:
    """Score by where the gold passage sits in the document (beginning / middle / end)."""
    import altair as alt  # heavy: imported on first use, off start-up

    pos = pos.assign(label=pos["model"].map(label), context=pos["mode"].map(_context))
    return alt.Chart(pos).mark_line(point=True).encode(
        x=alt.X("position:N", sort=POSITIONS),
        y=alt.Y("score:Q", scale=alt.Scale(domain=[0, 1]), title=None), color=alt.Color("context:N", title="context"),
        strokeDash=alt.StrokeDash("label:N", title="model", legend=alt.Legend(labelLimit=0)),
        opacity=alt.condition("datum.small", alt.value(0.3), alt.value(1.0)),
        column=alt.Column("kind:N", title=None),
        tooltip=["label", "context", "kind", "position", "score", "ci_low", "ci_high", "n"],
    ).properties(width=260, title="Score by position in the document (faint points: n < 5)")


@whole_labels
def type_counts(types: list[str]) -> alt.Chart:
    """How many loaded items there are of each question type."""
    import altair as alt  # heavy: imported on first use, off start-up
    import pandas as pd  # heavy: imported on first use, off start-up

    counts = pd.DataFrame(types, columns=["type"]).value_counts().reset_index()
    base = alt.Chart(counts).encode(
        x=alt.X("count:Q", title="items", axis=alt.Axis(tickMinStep=1, format="d")),
        y=alt.Y("type:N", sort="-x", title=None, axis=alt.Axis(labelLimit=0)), tooltip=["type", "count"])
    bars = base.mark_bar(color="#2e7d32")
    labels = base.mark_text(align="left", dx=3).encode(text="count:Q")  # the count at the end of each bar
    return (bars + labels).properties(height=alt.Step(22), title="Items per question type")


# ----- EnviroExam ------------------------------------------------------------------------------------------------
def exam_leaderboard(board_rows: Sequence[BoardRow]) -> pd.DataFrame:
    """The leaderboard table: published models and full runs made here, with n and the failure counts."""
    import pandas as pd  # heavy: imported on first use, off start-up

    board = pd.DataFrame([b.__dict__ for b in board_rows])
    board["n"] = board["n_questions"].astype("Int64")
    return board[["model", "M", "sigma", "cv", "I", "source", "n", "failed", "unparsed"]]


@whole_labels
def exam_leaderboard_chart(board: pd.DataFrame, published: str, here: str) -> alt.Chart:
    """Every model named on its bar (no label is dropped for overlap), runs made here in green with the I value
    at the end of the bar, so the model run here is easy to find among the published ones."""
    import altair as alt  # heavy: imported on first use, off start-up

    data = board.dropna(subset=["I"])
    order = list(data.sort_values("I", ascending=False)["model"])  # best first (a layered chart drops sort="-x")
    base = alt.Chart(data).encode(
        x=alt.X("I:Q", title="composite index I = M × (1 − CV)"),
        # labelFlush off: on, the first label was pushed down onto the second
        y=alt.Y("model:N", sort=order, title=None, axis=alt.Axis(labelOverlap=False, labelLimit=0, labelFontSize=11,
                                                                 labelFlush=False)),
        tooltip=["model", "source", "M", "sigma", "cv", "I", "n"])
    bars = base.mark_bar().encode(color=alt.Color("source:N", title=None, legend=alt.Legend(orient="bottom"),
                                                  scale=alt.Scale(domain=[published, here],
                                                                  range=["#9e9e9e", "#2e7d32"])))
    labels = base.transform_filter(alt.datum.source == here).mark_text(
        align="left", dx=4, fontWeight="bold", color="#2e7d32").encode(text=alt.Text("I:Q", format=".1f"))
    return (bars + labels).properties(height=alt.Step(17), title="Leaderboard")


def exam_per_course(runs: Sequence[ExamRun], meta: pd.DataFrame) -> pd.DataFrame:
    """One row per run × course: accuracy (%), with the course's title and level."""
    import pandas as pd  # heavy: imported on first use, off start-up

    return pd.DataFrame([{"model": r.label + (" (partial)" if r.partial else ""), "shots": r.shots,
                          "course": c, "accuracy": a}
                         for r in runs for c, a in r.courses.items()]).merge(meta, on="course")


@whole_labels
def course_heatmap(per: pd.DataFrame, order: list[str]) -> alt.Chart:
    """A row per course (all 42 named: across the page Vega dropped every other title to avoid overlap), a column
    per model."""
    import altair as alt  # heavy: imported on first use, off start-up

    return alt.Chart(per).mark_rect().encode(
        y=alt.Y("title:N", title=None, sort=order, axis=alt.Axis(labelOverlap=False)),
        x=alt.X("model:N", title=None, axis=alt.Axis(labelAngle=-90, labelOverlap=False)),
        color=alt.Color("accuracy:Q", scale=alt.Scale(domain=[0, 100], scheme="greens")),
        tooltip=["model", "title", "level", "accuracy"]).properties(title="Accuracy (%) by course",
                                                                     height=alt.Step(20))


@whole_labels
def course_bars(one: pd.DataFrame, title: str) -> alt.Chart:
    import altair as alt  # heavy: imported on first use, off start-up

    return alt.Chart(one).mark_bar().encode(
        x=alt.X("accuracy:Q", scale=alt.Scale(domain=[0, 100])), y=alt.Y("title:N", sort="-x", title=None),
        color="level:N", tooltip=["title", "level", "accuracy"]).properties(title=title)


@whole_labels
def level_bars(per: pd.DataFrame) -> alt.Chart:
    import altair as alt  # heavy: imported on first use, off start-up

    lvl = per.groupby(["model", "level"])["accuracy"].mean().reset_index()
    return alt.Chart(lvl).mark_bar().encode(
        # the score is named in the title: a rotated y title was drawn past the chart's left edge
        x=alt.X("level:N", sort=LEVELS, title=None), y=alt.Y("accuracy:Q", title=None), color="model:N",
        xOffset="model:N", tooltip=["model", "level", "accuracy"]).properties(title="Mean accuracy (%) by education level")


@whole_labels
def shots_bars(per: pd.DataFrame) -> alt.Chart | None:
    """0-shot against 5-shot per model, when both were run."""
    import altair as alt  # heavy: imported on first use, off start-up

    base = per.assign(base=per["model"].str.replace(r" · \d-shot", "", regex=True))
    if base["shots"].nunique() < 2:
        return None
    shot = base.groupby(["base", "shots"])["accuracy"].mean().reset_index()
    return alt.Chart(shot).mark_bar().encode(
        x=alt.X("shots:O", title="shots"), y="accuracy:Q", color="shots:O", column="base:N",
    ).properties(width=120, title="0-shot vs 5-shot")


@whole_labels
def quiz_bars(rows: list[dict]) -> alt.Chart:
    """The user's quiz score beside the models' accuracy on that course."""
    import altair as alt  # heavy: imported on first use, off start-up
    import pandas as pd  # heavy: imported on first use, off start-up

    return alt.Chart(pd.DataFrame(rows)).mark_bar().encode(
        x=alt.X("accuracy:Q", scale=alt.Scale(domain=[0, 100])), y=alt.Y("who:N", sort="-x", title=None),
        color=alt.condition(alt.datum.who == "you", alt.value("#2e7d32"), alt.value("#9e9e9e")))


# ----- Validate --------------------------------------------------------------------------------------------------
@whole_labels
def share_correct(agg: pd.DataFrame) -> alt.Chart:
    """Share of items judged correct under the either / all rules, per label."""
    import altair as alt  # heavy: imported on first use, off start-up

    # one row per question asked of the experts, its name read across (a facet row's header is turned on its side
    # and ran into the next one); the rules are bars within the row, named in the legend under the chart
    return alt.Chart(agg).mark_bar().encode(
        x=alt.X("share:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"), title="share of items"),
        y=alt.Y("label:N", title=None), yOffset="rule:N", color=alt.Color("rule:N", title="rule"),
        tooltip=["label", "rule", alt.Tooltip("share:Q", format=".0%")]).properties(
        height=alt.Step(14), title="Share correct")


@whole_labels
def share_correct_by_type(pt: pd.DataFrame) -> alt.Chart:
    """Horizontal bars, one row of types per label, so ten type names never overlap; each type says its n."""
    import altair as alt  # heavy: imported on first use, off start-up

    return alt.Chart(pt).mark_bar().encode(
        y=alt.Y("type:N", title=None, axis=alt.Axis(labelLimit=0)), x=alt.X("share:Q", axis=alt.Axis(format="%"),
                                                                              scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("rule:N", title="rule"), yOffset="rule:N",
        tooltip=["label", "type", "rule", alt.Tooltip("share:Q", format=".0%")]).properties(
        height=alt.Step(9), width=220).facet(facet=alt.Facet("label:N", title=None), columns=2).properties(
        title="Share correct by question type")


# ----- benchmark items and runs ----------------------------------------------------------------------------------
def items_table(items: list) -> pd.DataFrame:
    """Loaded benchmark items as a table a reader scans: type, question, expected answer, page, document."""
    import pandas as pd  # heavy: imported on first use, off start-up

    return pd.DataFrame([{"type": it.question_type, "question": it.question, "expected answer": it.answer,
                          "page": it.page_number if it.page_number is not None else "",
                          "document": it.doc} for it in items])


def run_title(config: RunConfig, n_items: int | None, model_label: Callable[[str], str],
              mode_labels: Mapping[str, str], created_at: str | None = None) -> str:
    """A run in plain words: "SmolLM2 + Extractive baseline · RAG, Gold passage · 20 items · 30 Nov 2026 15:02"
    (the date only when ``created_at`` is given)."""
    import pandas as pd  # heavy: imported on first use, off start-up

    models = " + ".join(model_label(m) for m in config.models)
    modes = ", ".join(mode_labels.get(m, m) for m in config.modes)
    n = n_items
    parts = [models, modes, f"{n} item{'' if n == 1 else 's'}" if n else ""]
    if created_at:
        try:
            parts.append(pd.Timestamp(created_at).strftime("%d %b %Y %H:%M:%S"))
        except ValueError:
            parts.append(created_at[:16])
    return " · ".join(p for p in parts if p)


def stored_run_title(run: StoredRun, model_label: Callable[[str], str], mode_labels: Mapping[str, str]) -> str:
    """A stored run in plain words, with the time it was started."""
    return run_title(run.config, run.n_items, model_label, mode_labels, run.created_at)


# ----- arena -----------------------------------------------------------------------------------------------------
ARENA_FEW = 30  # below this many votes, ratings are a first look


def arena_table(result: Ratings, name: Callable[[str], str]) -> pd.DataFrame:
    """One row per system, best first: rating (log-odds, centred), the Elo-style figure, its 95% interval (or that
    the votes do not bound it yet), votes."""
    import pandas as pd  # heavy: imported on first use, off start-up

    too_few = too_few_votes(result)
    rows = [{"system": name(s), "rating": round(m.rating, 2), "Elo-style": round(m.elo),
             "95% interval (rating)": (f"{m.ci95[0]:+.2f} to {m.ci95[1]:+.2f}" if None not in m.ci95 else
                                       "too few votes (n < 5)" if s in too_few else "not bounded by the votes yet"),
             "votes (n)": m.n} for s, m in result.models.items()]
    return pd.DataFrame(rows).sort_values("rating", ascending=False, ignore_index=True)


LEFT_OUT = "answers left out"  # of the ratings: failed, empty or 'nothing to quote' (the page's header tooltip)
TIES = "ties"  # in the pair table: 'both bad' counts as a tie, and has its own column too


def arena_ratings_table(result: Ratings, name: Callable[[str], str], systems: list[str],
                        left_out: dict[str, int]) -> pd.DataFrame:
    """``arena_table`` with every system of the arena (those without votes: n = 0, no rating) and each system's
    left-out answers; ratings as text ("—" where there is none). ``systems`` and ``left_out`` are by system key."""
    import pandas as pd  # heavy: imported on first use, off start-up

    table = arena_table(result, name)
    unvoted = [k for k in systems if k not in result.models]
    if unvoted:
        table = pd.concat([table, pd.DataFrame([{"system": name(k), "votes (n)": 0} for k in unvoted])],
                          ignore_index=True)
    key_of = {name(k): k for k in systems}
    table[LEFT_OUT] = [left_out.get(key_of.get(x, ""), 0) for x in table["system"]]
    table["rating"] = table["rating"].map(lambda x: "—" if pd.isna(x) else f"{x:+.2f}")  # text: no mixed column
    table["Elo-style"] = table["Elo-style"].map(lambda x: "—" if pd.isna(x) else f"{x:.0f}")
    return table


def arena_pair_table(matrix: Sequence[WinRate], name: Callable[[str], str]) -> pd.DataFrame:
    """Votes per pair of systems (each pair once): n, win rate with its Wilson interval, wins, losses, ties, both bad."""
    import pandas as pd  # heavy: imported on first use, off start-up

    return pd.DataFrame([{
        "system": name(m.model), "against": name(m.opponent), "votes (n)": m.n,
        "win rate": f"{m.win_rate:.0%}", "95% interval": f"{m.ci95[0]:.0%}–{m.ci95[1]:.0%}",
        "wins": m.wins, "losses": m.losses, TIES: m.ties, "both bad": m.both_bad}
        for m in matrix if m.model < m.opponent])


@whole_labels
def arena_ratings_chart(result: Ratings, name: Callable[[str], str]) -> alt.LayerChart | alt.FacetChart:
    """Each system's rating with its 95% bootstrap interval, best on top; 0 is the average system. A system the votes
    do not bound yet has its point and no interval line (the table says why)."""
    import altair as alt  # heavy: imported on first use, off start-up
    import pandas as pd  # heavy: imported on first use, off start-up

    frame = pd.DataFrame([{"system": name(s), "rating": m.rating, "elo": m.elo, "n": m.n,
                           "lo": m.ci95[0], "hi": m.ci95[1],
                           "interval": "not bounded by the votes yet" if None in m.ci95 else "95% bootstrap"}
                          for s, m in result.models.items()])
    order = frame.sort_values("rating", ascending=False)["system"].tolist()
    y = alt.Y("system:N", sort=order, title=None, axis=alt.Axis(labelLimit=0))
    tips = ["system", "rating", "lo", "hi", "interval", "elo", "n"]
    bounded = frame[frame["interval"] == "95% bootstrap"]
    x_title = "rating (log-odds, 0 = average) with 95% interval"
    points = alt.Chart(frame).mark_point(filled=True, size=80).encode(
        y=y, x=alt.X("rating:Q", title=x_title), tooltip=tips,
        color=alt.Color("interval:N", title=None, scale=alt.Scale(  # only the kinds present are in the legend
            domain=[k for k in ("95% bootstrap", "not bounded by the votes yet") if k in set(frame["interval"])],
            range=[c for k, c in (("95% bootstrap", "#1b5e20"), ("not bounded by the votes yet", "#9e9e9e"))
                   if k in set(frame["interval"])])))
    zero = alt.Chart(pd.DataFrame({"x": [0]})).mark_rule(strokeDash=[4, 4], color="grey").encode(x="x:Q")
    layers = [points, zero]
    if len(bounded):  # no line at all while the votes bound no system
        layers.insert(0, alt.Chart(bounded).mark_rule(strokeWidth=2).encode(y=y, x="lo:Q", x2="hi:Q", tooltip=tips))
    return alt.layer(*layers).properties(height=alt.Step(34), title="Ratings (Bradley–Terry)")


@whole_labels
def win_rate_heatmap(rows: Sequence[WinRate], name: Callable[[str], str]) -> alt.LayerChart | alt.FacetChart:
    """Win rate of the row's system over the column's (ties as half), with the number of votes in each cell."""
    import altair as alt  # heavy: imported on first use, off start-up
    import pandas as pd  # heavy: imported on first use, off start-up

    frame = pd.DataFrame([r.__dict__ for r in rows]).assign(
        system=lambda d: d["model"].map(name), opponent_name=lambda d: d["opponent"].map(name),
        cell=lambda d: [f"{w:.0%} (n={n})" for w, n in zip(d["win_rate"], d["n"], strict=True)])
    base = alt.Chart(frame).encode(x=alt.X("opponent_name:N", title="against",
                                           axis=alt.Axis(labelLimit=0, labelAngle=-30, labelOverlap=False)),
                                   y=alt.Y("system:N", title=None, axis=alt.Axis(labelLimit=0)))
    heat = base.mark_rect().encode(
        color=alt.Color("win_rate:Q", scale=alt.Scale(domain=[0, 1], scheme="redblue"), title="win rate"),
        tooltip=["system", "opponent_name", "wins", "losses", "ties", "n", alt.Tooltip("win_rate:Q", format=".0%")])
    text = base.mark_text(fontSize=12).encode(text="cell:N")
    return alt.layer(heat, text).properties(title="Win rate of the row over the column (ties count half)")


@whole_labels
def position_bias_chart(bias: PositionBias) -> alt.LayerChart | alt.FacetChart:
    """Share of decisive votes that went to the left answer: a point with its 95% Wilson interval, beside the 50%
    line (no bias)."""
    import altair as alt  # heavy: imported on first use, off start-up
    import pandas as pd  # heavy: imported on first use, off start-up

    lo, hi = left_share_ci(bias) or (None, None)  # drawn only with decisive votes, which have an interval
    frame = pd.DataFrame([{"side": "left answer", "share": bias.left_share, "lo": lo, "hi": hi, "n": bias.n}])
    base = alt.Chart(frame).encode(y=alt.Y("side:N", title=None))
    x = alt.X("lo:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"),
              title=f"share of decisive votes for the left answer, with 95% interval (n = {bias.n})")
    rule = base.mark_rule(strokeWidth=3, color="#455a64").encode(x=x, x2="hi:Q", tooltip=["share", "lo", "hi", "n"])
    point = base.mark_point(filled=True, size=120, color="#1b5e20").encode(x="share:Q")
    half = alt.Chart(pd.DataFrame({"x": [0.5]})).mark_rule(strokeDash=[4, 4], color="black").encode(x="x:Q")
    return alt.layer(rule, point, half).properties(height=90, title="Position bias (dashed line: no bias)")
