"""RAGAS answer correctness through the real openai client and a loopback server that plays the judge."""
import json

import numpy as np
import pytest

from lib.evaluation.metrics.answer_correctness import (
    CLASSIFY_EXAMPLES,
    AnswerCorrectness,
    classify_prompt,
    statements_prompt,
)
from lib.evaluation.metrics.base import JUDGE_FAILED, NO_ANSWER, NO_STATEMENTS, OK, Sample
from lib.models import registry
from tests.fake_llm_server import openai_loopback

KEY = "sk-test-SUPERSECRETKEY1234567890"
SECRET_CORE = "SUPERSECRETKEY1234567890"

# ragas's documented example (docs/concepts/metrics/available_metrics/answer_correctness.md): the low-correctness
# answer, with TP = [born in 1879], FP = [born in Spain], FN = [born in Germany].
QUESTION = "Where and when was Einstein born?"
ANSWER = "Einstein was born in Spain in 1879."
TRUTH = "Einstein was born in 1879 in Germany."
ANSWER_STATEMENTS = ["Einstein was born in Spain.", "Einstein was born in 1879."]
TRUTH_STATEMENTS = ["Einstein was born in 1879.", "Einstein was born in Germany."]
CLASSIFICATION = {
    "TP": [{"statement": "Einstein was born in 1879.", "reason": "The ground truth gives 1879."}],
    "FP": [{"statement": "Einstein was born in Spain.", "reason": "The ground truth says Germany, not Spain."}],
    "FN": [{"statement": "Einstein was born in Germany.", "reason": "The answer does not say Germany."}],
}

# The fake embedder: the answer is (1, 0), the ground truth (0.8, 0.6); both unit length, so the cosine is 0.8.
SEMANTIC = 0.8


class FakeEmbed:
    def __init__(self):
        self.calls = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        return np.array([[1.0, 0.0], [0.8, 0.6]])


@pytest.fixture
def server(monkeypatch):
    with openai_loopback(monkeypatch, KEY, "gpt-test", timeout=1, retries=2) as srv:
        yield srv


@pytest.fixture
def embed():
    return FakeEmbed()


@pytest.fixture
def metric(server, embed):
    return AnswerCorrectness(registry.get("openai"), embed)


def sample(answer=ANSWER, truth=TRUTH, question=QUESTION, qtype="factual"):
    return Sample(question=question, answer=answer, truth=truth, question_type=qtype)


def statements_reply(statements):
    return json.dumps({"statements": statements})


def sent_input(req) -> dict:
    """The input block of a rendered ragas prompt, read back as JSON."""
    msgs = req["body"]["messages"]
    assert len(msgs) == 1 and msgs[0]["role"] == "user"  # ragas sends the prompt alone, no system message
    content = msgs[0]["content"]
    marker = "Now perform the same with the following input\ninput: "
    assert marker in content and content.endswith("\nOutput: ")
    return json.loads(content.split(marker, 1)[1].removesuffix("\nOutput: "))


def test_ragas_documented_example_exact_score(server, metric, embed):
    server.script.extend([
        ("ok", statements_reply(ANSWER_STATEMENTS)),
        # replies wrapped in a fence or with words around the JSON are read too
        ("ok", "```json\n" + statements_reply(TRUTH_STATEMENTS) + "\n```"),
        ("ok", "Here is the classification:\n" + json.dumps(CLASSIFICATION) + "\nDone."),
    ])
    res = metric.score(sample())
    # F1 = TP / (TP + 0.5 (FP + FN)) = 1 / (1 + 0.5 × 2) = 0.5; value = 0.75 × 0.5 + 0.25 × 0.8 = 0.575
    assert res.status == OK and res.metric == "answer_correctness"
    assert res.details["factual"] == 0.5
    assert res.details["semantic"] == SEMANTIC
    assert res.value == 0.575
    assert (res.details["tp"], res.details["fp"], res.details["fn"]) == (1, 1, 1)
    assert res.details["answer_statements"] == ANSWER_STATEMENTS
    assert res.details["truth_statements"] == TRUTH_STATEMENTS
    assert res.scorer == "openai/gpt-test" == metric.judge.id
    assert "openai/gpt-test" in metric.label and "RAGAS" in metric.label
    assert embed.calls == [[ANSWER, TRUTH]]
    assert len(server.requests) == 3


def test_ragas_sun_example_from_the_classifier_prompt(server, metric):
    # the classifier's own worked example: TP 1, FP 1, FN 5 → F1 = 1 / (1 + 0.5 × 6) = 0.25
    ex_in, ex_out = CLASSIFY_EXAMPLES[0]
    server.script.extend([("ok", statements_reply(ex_in["answer"])), ("ok", statements_reply(ex_in["ground_truth"])),
                          ("ok", json.dumps(ex_out))])
    res = metric.score(sample(answer="The sun is powered by fission. It lights the solar system.",
                              truth="The sun is powered by fusion...", question=ex_in["question"]))
    assert res.status == OK
    assert (res.details["tp"], res.details["fp"], res.details["fn"]) == (1, 1, 5)
    assert res.details["factual"] == 0.25
    assert res.value == 0.3875  # 0.75 × 0.25 + 0.25 × 0.8


def test_requests_sent_three_calls_with_the_right_inputs(server, metric):
    server.script.extend([("ok", statements_reply(ANSWER_STATEMENTS)), ("ok", statements_reply(TRUTH_STATEMENTS)),
                          ("ok", json.dumps(CLASSIFICATION))])
    metric.score(sample())
    assert len(server.requests) == 3
    assert all(r["path"].endswith("/chat/completions") for r in server.requests)
    first, second, third = (sent_input(r) for r in server.requests)
    assert first == {"question": QUESTION, "answer": ANSWER}
    assert second == {"question": QUESTION, "answer": TRUTH}
    assert third == {"question": QUESTION, "answer": ANSWER_STATEMENTS, "ground_truth": TRUTH_STATEMENTS}
    # the answer-statement call does not see the ground truth, nor the truth call the answer
    assert TRUTH not in server.requests[0]["body"]["messages"][0]["content"]
    assert ANSWER not in server.requests[1]["body"]["messages"][0]["content"]
    # ragas's instructions and few-shot examples are in the prompts
    step1 = server.requests[0]["body"]["messages"][0]["content"]
    step3 = server.requests[2]["body"]["messages"][0]["content"]
    assert step1.startswith("Given a question and an answer, analyze the complexity of each sentence in the answer.")
    assert "Ensure that no pronouns are used in any statement." in step1
    assert "Albert Einstein was a German-born theoretical physicist." in step1
    assert step3.startswith("Given a ground truth and an answer statements, analyze each statement and classify")
    assert "The sun is powered by nuclear fission, similar to nuclear reactors on Earth." in step3
    assert "The boiling point of water can change with altitude." in step3
    assert server.requests[0]["body"]["model"] == "gpt-test"


def test_prompts_are_ragas_layout():
    p = statements_prompt("Q?", 'An "answer".')
    assert "Please return the output in a JSON format that complies with the following schema" in p
    assert '"title": "StatementGeneratorOutput"' in p and "--------EXAMPLES-----------\nExample 1\n" in p
    c = classify_prompt("Q?", ["a"], [])
    assert '"title": "ClassificationWithReason"' in c and "Example 2\n" in c
    assert c.endswith('input: {\n    "question": "Q?",\n    "answer": [\n        "a"\n    ],\n    "ground_truth": []\n}\nOutput: ')


@pytest.mark.parametrize("reply", [
    "I could not split this answer.",  # no JSON at all
    '{"statements": "Einstein was born in Spain."}',  # not a list
    '{"statements": ["ok", 3]}',  # not all strings
    '["Einstein was born in Spain."]',  # a list, not the asked-for object
    '{"claims": ["Einstein was born in Spain."]}',  # wrong key
])
def test_malformed_reply_at_statement_step(server, metric, reply):
    server.script.append(("ok", reply))
    res = metric.score(sample())
    assert res.status == JUDGE_FAILED and res.value is None
    assert res.details["step"] == "statements" and res.details["error"]
    assert res.scorer == "openai/gpt-test"
    assert len(server.requests) == 1  # stops at the failed step


def test_malformed_truth_statements_is_the_statements_step(server, metric):
    server.script.extend([("ok", statements_reply(ANSWER_STATEMENTS)), ("ok", "{not json")])
    res = metric.score(sample())
    assert res.status == JUDGE_FAILED and res.details["step"] == "statements"
    assert len(server.requests) == 2


@pytest.mark.parametrize("reply", [
    '{"TP": ["Einstein was born in 1879."], "FP": [], "FN": []}',  # items without reasons
    '{"TP": [], "FP": []}',  # FN missing
    '{"tp": [], "fp": [], "fn": []}',  # wrong keys
    '{"TP": [{"statement": "x"}], "FP": [], "FN": []}',  # reason missing
    "```json\n{\"TP\": [\n```",  # broken JSON in a fence
])
def test_malformed_reply_at_classification_step(server, metric, embed, reply):
    server.script.extend([("ok", statements_reply(ANSWER_STATEMENTS)), ("ok", statements_reply(TRUTH_STATEMENTS)),
                          ("ok", reply)])
    res = metric.score(sample())
    assert res.status == JUDGE_FAILED and res.value is None
    assert res.details["step"] == "classification" and res.details["error"]
    assert len(server.requests) == 3
    assert embed.calls == []


def test_server_error_is_judge_failed(server, metric):
    server.script.extend([("500",)] * 3)  # first try + 2 retries
    res = metric.score(sample())
    assert res.status == JUDGE_FAILED and res.value is None
    assert res.details["step"] == "statements"
    assert "server error 500" in res.details["error"]
    assert len(server.requests) == 3


def test_server_error_at_classification(server, metric):
    server.script.extend([("ok", statements_reply(ANSWER_STATEMENTS)), ("ok", statements_reply(TRUTH_STATEMENTS))]
                         + [("500",)] * 3)
    res = metric.score(sample())
    assert res.status == JUDGE_FAILED and res.details["step"] == "classification"


def test_no_key_in_errors(server, metric):
    server.script.append(("401",))  # the server echoes the key in its error body
    res = metric.score(sample())
    assert res.status == JUDGE_FAILED
    assert SECRET_CORE not in json.dumps(res.details)
    # a malformed reply that quotes the key is quoted back redacted
    server.script.append(("ok", f"cannot comply, key {KEY} is bad"))
    res = metric.score(sample())
    assert res.status == JUDGE_FAILED and res.details["step"] == "statements"
    assert "cannot comply" in res.details["error"]
    assert SECRET_CORE not in json.dumps(res.details)


def test_empty_classification_is_no_statements(server, metric):
    server.script.extend([("ok", statements_reply(ANSWER_STATEMENTS)), ("ok", statements_reply(TRUTH_STATEMENTS)),
                          ("ok", '{"TP": [], "FP": [], "FN": []}')])
    res = metric.score(sample())
    assert res.status == NO_STATEMENTS and res.value is None
    assert res.details["factual"] is None and (res.details["tp"], res.details["fp"], res.details["fn"]) == (0, 0, 0)


def test_no_statements_on_either_side_skips_the_classifier(server, metric):
    server.script.extend([("ok", statements_reply([])), ("ok", statements_reply(["  "]))])
    res = metric.score(sample())
    assert res.status == NO_STATEMENTS and res.value is None
    assert res.details["answer_statements"] == [] and res.details["truth_statements"] == []
    assert len(server.requests) == 2


@pytest.mark.parametrize("answer", ["", "   ", None])
def test_empty_answer_is_no_answer_without_a_call(server, metric, embed, answer):
    res = metric.score(sample(answer=answer))
    assert res.status == NO_ANSWER and res.value == 0.0
    assert server.requests == [] and embed.calls == []


def test_applies_to_open_items_only(server, metric):
    assert metric.applies(sample(qtype="factual"), "gold")
    assert not metric.applies(sample(qtype="closed"), "gold")
