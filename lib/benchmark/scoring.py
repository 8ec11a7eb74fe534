"""Scoring: closed items by exact yes/no; other items by RAGAS answer correctness
(0.75 × factual F1 over statements + 0.25 × semantic similarity).

Every function returns a Score with its parts and a status; none returns a silent NaN.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..verdict import UNCLEAR, parse_verdict

W_FACTUAL = 0.75
W_SEMANTIC = 0.25


@dataclass
class Score:
    score: float | None
    parts: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"  # ok | unclear | judge_failed | no_statements | no_answer

    @property
    def scored(self) -> bool:
        return self.score is not None


def score_closed(answer_verdict: str | None, answer_text: str | None, truth: str) -> Score:
    verdict = answer_verdict or parse_verdict(answer_text)
    truth = truth.strip().lower()
    if verdict == UNCLEAR:
        return Score(0.0, {"verdict": verdict, "truth": truth}, "unclear")
    return Score(1.0 if verdict == truth else 0.0, {"verdict": verdict, "truth": truth})


def f1_from_counts(tp: int, fp: int, fn: int) -> float | None:
    """F1 = TP / (TP + 0.5 (FP + FN)); None when there is nothing to compare (all three zero)."""
    if tp + fp + fn == 0:
        return None
    return tp / (tp + 0.5 * (fp + fn))


def answer_correctness(factual: float, semantic: float) -> float:
    return W_FACTUAL * factual + W_SEMANTIC * semantic


# ----- the offline proxy for the factual part --------------------------------------------------
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]")


def _norm_tokens(text: str) -> list[str]:
    return _ARTICLES.sub(" ", _PUNCT.sub(" ", text.lower())).split()


def token_f1(answer: str, truth: str) -> tuple[float | None, dict[str, int]]:
    """SQuAD-style token F1, in the same TP/FP/FN form: TP = shared tokens, FP = extra answer tokens,
    FN = missed truth tokens."""
    a, t = Counter(_norm_tokens(answer)), Counter(_norm_tokens(truth))
    tp = sum((a & t).values())
    fp = sum(a.values()) - tp
    fn = sum(t.values()) - tp
    return f1_from_counts(tp, fp, fn), {"tp": tp, "fp": fp, "fn": fn}


# ----- the LLM judge -----------------------------------------------------------------------------
JUDGE_PROMPT = """You compare an ANSWER with a GROUND TRUTH.
1. Split each into short, self-contained factual statements.
2. Classify the statements:
   - TP: statements in the answer that the ground truth supports;
   - FP: statements in the answer that the ground truth does not support;
   - FN: statements in the ground truth that the answer misses.
Reply with JSON only, in this form: {{"TP": ["..."], "FP": ["..."], "FN": ["..."]}}

QUESTION: {question}
ANSWER: {answer}
GROUND TRUTH: {truth}
JSON:"""


class JudgeError(Exception):
    pass


def parse_judge_output(text: str) -> dict[str, int]:
    """Counts from the judge's JSON; raises JudgeError when it is not the asked-for shape."""
    m = re.search(r"\{.*\}", text or "", re.S)
    if not m:
        raise JudgeError("the judge returned no JSON")
    try:
        obj = json.loads(m.group(0))
    except json.JSONDecodeError as exc:
        raise JudgeError(f"the judge returned malformed JSON ({exc.msg})") from exc
    if not isinstance(obj, dict):
        raise JudgeError("the judge's JSON is not an object")
    counts = {}
    for key in ("TP", "FP", "FN"):
        val = obj.get(key, obj.get(key.lower()))
        if not isinstance(val, list):
            raise JudgeError(f"the judge's JSON lacks a list for {key}")
        counts[key.lower()] = len(val)
    return counts


def score_open(
    answer: str | None, truth: str, question: str, embed: Any, judge: Any = None,
) -> Score:
    """Answer correctness with the judge (a Provider) for the factual part, or the token-F1 proxy.

    ``embed`` maps a list of texts to unit vectors (the embedder's ``embed``)."""
    if not answer or not answer.strip():
        return Score(0.0, {"factual": 0.0, "semantic": 0.0, "factual_method": "none"}, "no_answer")
    vecs = embed([answer, truth])
    semantic = float(max(0.0, min(1.0, float(vecs[0] @ vecs[1]))))
    if judge is None:
        factual, counts = token_f1(answer, truth)
        method = "token_f1_proxy"
    else:
        from ..providers.base import ProviderError, Request

        try:
            out = judge.generate(Request(prompt=JUDGE_PROMPT.format(question=question, answer=answer, truth=truth),
                                         max_tokens=768))
            counts = parse_judge_output(out.text)
        except (JudgeError, ProviderError) as exc:
            return Score(None, {"semantic": round(semantic, 4), "factual_method": f"judge:{judge.id}",
                                "error": str(exc)}, "judge_failed")
        factual = f1_from_counts(counts["tp"], counts["fp"], counts["fn"])
        method = f"judge:{judge.id}"
    parts = {"semantic": round(semantic, 4), "factual_method": method, **counts}
    if factual is None:
        parts["factual"] = None
        return Score(None, parts, "no_statements")
    parts["factual"] = round(factual, 4)
    return Score(round(answer_correctness(factual, semantic), 4), parts)
