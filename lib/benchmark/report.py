"""Tables behind the Benchmark page's charts: pure functions over a run's stored answers."""
from __future__ import annotations

from typing import Any

import pandas as pd

from .runner import answers, load_run

# NEPAQuAD paper (Phan et al. 2024), Table 2: answer correctness (%) by model and context. Published figures.
PUBLISHED_TABLE2 = pd.DataFrame(
    [
        ("GPT-4", 67.00, 63.70, 74.36, 76.60),
        ("Claude", 64.53, 66.46, 75.16, 76.84),
        ("Gemini", 62.84, 65.90, 75.46, 81.15),
        ("Mistral", 64.95, 61.81, 72.88, 75.34),
        ("Llama3.1", 66.35, 59.52, 74.01, 72.73),
    ],
    columns=["model", "none", "pdf", "rag", "gold"],
)


def answers_frame(run_id: str, engine: Any = None) -> pd.DataFrame:
    """One row per stored answer, with the item's type, position, question and expected answer."""
    stored = load_run(run_id, engine)
    if stored is None:
        return pd.DataFrame()
    items, _ = stored
    meta = pd.DataFrame([{"item_id": it.id, "question_type": it.question_type, "position": it.position or "unknown",
                          "question": it.question, "expected": it.answer, "gold_context": it.context,
                          "page_number": it.page_number} for it in items])
    rows = pd.DataFrame(answers(run_id, engine))
    if rows.empty:
        return rows
    df = rows.merge(meta, on="item_id", how="left")
    df["kind"] = df["question_type"].map(lambda t: "closed" if t == "closed" else "open")
    return df


def scored(df: pd.DataFrame) -> pd.DataFrame:
    return df[(df["status"] == "ok") & df["score"].notna()] if not df.empty else df


def by_model_mode(df: pd.DataFrame) -> pd.DataFrame:
    """Mean score (closed 0/1, open answer correctness) by model × mode, as a long table."""
    s = scored(df)
    if s.empty:
        return pd.DataFrame(columns=["model", "mode", "score", "n"])
    return s.groupby(["model", "mode"]).agg(score=("score", "mean"), n=("score", "size")).reset_index()


def table2(df: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2 shape: models as rows, modes as columns, percentages."""
    long = by_model_mode(df)
    if long.empty:
        return long
    wide = long.pivot(index="model", columns="mode", values="score").mul(100).round(2)
    return wide[[m for m in ("none", "pdf", "rag", "gold") if m in wide.columns]].reset_index()


def by_type_mode(df: pd.DataFrame) -> pd.DataFrame:
    s = scored(df)
    if s.empty:
        return pd.DataFrame(columns=["model", "question_type", "mode", "score", "n"])
    return s.groupby(["model", "question_type", "mode"]).agg(score=("score", "mean"), n=("score", "size")).reset_index()


def by_position(df: pd.DataFrame) -> pd.DataFrame:
    s = scored(df)
    if s.empty:
        return pd.DataFrame(columns=["model", "mode", "position", "score", "n"])
    return s.groupby(["model", "mode", "position"]).agg(score=("score", "mean"), n=("score", "size")).reset_index()


def by_kind(df: pd.DataFrame) -> pd.DataFrame:
    s = scored(df)
    if s.empty:
        return pd.DataFrame(columns=["model", "mode", "kind", "score", "n"])
    return s.groupby(["model", "mode", "kind"]).agg(score=("score", "mean"), n=("score", "size")).reset_index()
