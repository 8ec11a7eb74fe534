import numpy as np
import pytest

from lib.benchmark.scoring import (
    JudgeError,
    answer_correctness,
    f1_from_counts,
    parse_judge_output,
    score_closed,
    score_open,
    token_f1,
)
from lib.providers.base import Answer, Provider, ProviderError, Request


def fake_embed(texts):
    # unit vectors with a fixed cosine of 0.6 between the two texts
    return np.array([[1.0, 0.0], [0.6, 0.8]])


def test_f1_formula_on_fixed_counts():
    assert f1_from_counts(2, 1, 1) == pytest.approx(2 / 3)
    assert f1_from_counts(3, 0, 0) == 1.0
    assert f1_from_counts(0, 2, 3) == 0.0
    assert f1_from_counts(1, 0, 3) == pytest.approx(1 / 2.5)
    assert f1_from_counts(0, 0, 0) is None  # nothing to compare: not a silent NaN


def test_answer_correctness_weights():
    assert answer_correctness(1.0, 0.0) == 0.75
    assert answer_correctness(0.0, 1.0) == 0.25
    assert answer_correctness(2 / 3, 0.6) == pytest.approx(0.75 * 2 / 3 + 0.25 * 0.6)


def test_closed_scoring():
    assert score_closed("yes", "Yes.", "Yes").score == 1.0
    assert score_closed(None, "No, it did not.", "no").score == 1.0
    assert score_closed(None, "Incorrect.", "yes").score == 0.0
    s = score_closed(None, "The passage does not say.", "yes")
    assert s.score == 0.0 and s.status == "unclear"


def test_token_f1_proxy():
    f1, counts = token_f1("The site is in Ohio", "site in Ohio and Michigan")
    assert counts == {"tp": 3, "fp": 1, "fn": 2}
    assert f1 == pytest.approx(3 / (3 + 1.5))


class Judge(Provider):
    id = "judge"
    label = "judge"

    def __init__(self, reply=None, error=None):
        super().__init__()
        self.reply, self.error = reply, error

    def _generate(self, req: Request) -> Answer:
        if self.error:
            raise self.error
        return Answer(self.reply)


def test_open_with_judge_counts():
    judge = Judge('Here: {"TP": ["a", "b"], "FP": ["c"], "FN": ["d"]}')
    s = score_open("answer", "truth", "q?", fake_embed, judge)
    assert s.status == "ok"
    assert s.parts["tp"] == 2 and s.parts["fp"] == 1 and s.parts["fn"] == 1
    assert s.parts["factual"] == pytest.approx(2 / 3, abs=1e-4)
    assert s.parts["semantic"] == pytest.approx(0.6)
    assert s.score == pytest.approx(0.75 * 2 / 3 + 0.25 * 0.6, abs=1e-4)
    assert s.parts["factual_method"] == "judge:judge"


def test_empty_statement_edge_cases():
    s = score_open("answer", "truth", "q", fake_embed, Judge('{"TP": [], "FP": [], "FN": []}'))
    assert s.score is None and s.status == "no_statements"
    s = score_open("answer", "truth", "q", fake_embed, Judge('{"TP": [], "FP": [], "FN": ["x", "y"]}'))
    assert s.parts["factual"] == 0.0 and s.score == pytest.approx(0.25 * 0.6)
    s = score_open("", "truth", "q", fake_embed, None)
    assert s.score == 0.0 and s.status == "no_answer"


@pytest.mark.parametrize("judge", [Judge("no json here"), Judge('{"TP": "a"}'), Judge("{bad json}"),
                                   Judge(error=ProviderError("judge: server error 500 after retries"))])
def test_judge_failure_is_recorded_not_nan(judge):
    s = score_open("answer", "truth", "q", fake_embed, judge)
    assert s.score is None and s.status == "judge_failed" and s.parts["error"]


def test_parse_judge_output_strict():
    assert parse_judge_output('{"tp": ["x"], "fp": [], "fn": []}') == {"tp": 1, "fp": 0, "fn": 0}
    with pytest.raises(JudgeError):
        parse_judge_output("[1, 2]")
