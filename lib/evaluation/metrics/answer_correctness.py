"""RAGAS answer correctness with a judge model: 0.75 × statement-level factual F1 + 0.25 × semantic similarity.

This reproduces RAGAS's own algorithm (the ``ragas`` package cannot be installed here: it would replace the
pinned ``openai`` SDK). It follows the legacy single-turn metric of explodinggradients/ragas,
``src/ragas/metrics/_answer_correctness.py`` at commit 931b485 (the ragas 0.2/0.3 line, the metric behind
``from ragas.metrics import answer_correctness``), with its prompts as that version renders them
(``PydanticPrompt.to_string()``), which ragas itself spells out "V1-identical" in
``src/ragas/prompt/metrics/common.py`` (``statement_generator_prompt``, commit 5f3aaa6) and
``src/ragas/prompt/metrics/answer_correctness.py`` (``correctness_classifier_prompt``, commit ebf508d):

1. Statement generation (``_faithfulness.StatementGeneratorPrompt``), one judge call for the answer and a
   separate one for the ground truth, each given the question: the instruction, the JSON Schema of
   ``{"statements": [str]}``, the Einstein few-shot example, then the input as indented JSON.
2. Classification (``CorrectnessClassifier``): the question, the answer statements and the ground-truth
   statements; the judge returns ``{"TP": [...], "FP": [...], "FN": [...]}``, each item
   ``{"statement", "reason"}``, with ragas's two worked examples (the sun / nuclear fission, the boiling point
   of water).
3. Factual F1 = TP / (TP + 0.5 (FP + FN)) over the counts of the three lists (ragas's ``fbeta_score`` with
   beta 1, which equals this up to its 1e-10 guards), and the value = 0.75 × F1 + 0.25 × semantic similarity.

What differs from ragas, and why:

- Instructions, schemas and examples are ragas's text; only the apostrophes of two example reasons are
  straight quotes (as in ragas's own V1-identical renderings), and inputs are dumped with ``json.dumps``
  (pydantic's ``model_dump_json(indent=4)`` gives the same text).
- Both statement lists empty: ragas scores the factual part 1.0 without asking the classifier; here the
  answer gets status NO_STATEMENTS and no value (and so does a classification with TP = FP = FN = 0, where
  ragas would score 0). A missing measurement is shown apart, never averaged in as a perfect or a zero score.
- A reply that is not JSON of the asked shape (or a failed call) ends as status JUDGE_FAILED naming the step.
  ragas's output parser first asks the LLM once more to fix the format (``max_retries=1``) and then gives NaN;
  here the provider's own retries cover transport errors, and a malformed reply is not re-asked.
- The reply is read leniently (a ```json fence or text around it is fine: the first JSON object is taken) but
  its shape strictly (the keys and types of ragas's pydantic models; extra keys are ignored, as pydantic does).
  Blank statements are dropped.
- Semantic similarity is this project's embedder (offline MiniLM) cosine, clipped to [0, 1]
  (``semantic_similarity.cosine``); ragas uses the configured embeddings (OpenAI by default), unclipped.
- The prompt is sent as the user message with no system message, as ragas does, at the judge model's own
  temperature (0 for the remote models here; ragas uses a near-zero one).
"""
from __future__ import annotations

import json

from lib.core.redaction import redact
from lib.evaluation.metrics.base import JUDGE_FAILED, NO_ANSWER, NO_STATEMENTS, OK, MetricResult, Sample
from lib.evaluation.metrics.semantic_similarity import Embed, cosine
from lib.evaluation.metrics.token_f1_proxy import W_FACTUAL, W_SEMANTIC, f1_from_counts
from lib.models.base import Provider, ProviderError, Request

STATEMENTS_MAX_TOKENS = 1024
CLASSIFY_MAX_TOKENS = 2048

# ----- ragas's prompts (see the module docstring for the source) ------------------------------------------------
STATEMENT_INSTRUCTION = (
    "Given a question and an answer, analyze the complexity of each sentence in the answer. Break down each "
    "sentence into one or more fully understandable statements. Ensure that no pronouns are used in any "
    "statement. Format the outputs in JSON."
)
STATEMENT_SCHEMA = {
    "properties": {"statements": {"description": "The generated statements", "items": {"type": "string"},
                                  "title": "Statements", "type": "array"}},
    "required": ["statements"], "title": "StatementGeneratorOutput", "type": "object",
}
STATEMENT_EXAMPLES = [(
    {"question": "Who was Albert Einstein and what is he best known for?",
     "answer": "He was a German-born theoretical physicist, widely acknowledged to be one of the greatest and most "
               "influential physicists of all time. He was best known for developing the theory of relativity, he "
               "also made important contributions to the development of the theory of quantum mechanics."},
    {"statements": [
        "Albert Einstein was a German-born theoretical physicist.",
        "Albert Einstein is recognized as one of the greatest and most influential physicists of all time.",
        "Albert Einstein was best known for developing the theory of relativity.",
        "Albert Einstein made important contributions to the development of the theory of quantum mechanics.",
    ]},
)]

CLASSIFY_INSTRUCTION = (
    "Given a ground truth and an answer statements, analyze each statement and classify them in one of the "
    "following categories: TP (true positive): statements that are present in answer that are also directly "
    "supported by the one or more statements in ground truth, FP (false positive): statements present in the "
    "answer but not directly supported by any statement in ground truth, FN (false negative): statements found "
    "in the ground truth but not present in answer. Each statement can only belong to one of the categories. "
    "Provide a reason for each classification."
)
_REF = {"$ref": "#/$defs/StatementsWithReason"}
CLASSIFY_SCHEMA = {
    "$defs": {"StatementsWithReason": {
        "properties": {"statement": {"title": "Statement", "type": "string"},
                       "reason": {"title": "Reason", "type": "string"}},
        "required": ["statement", "reason"], "title": "StatementsWithReason", "type": "object"}},
    "properties": {"TP": {"items": _REF, "title": "Tp", "type": "array"},
                   "FP": {"items": _REF, "title": "Fp", "type": "array"},
                   "FN": {"items": _REF, "title": "Fn", "type": "array"}},
    "required": ["TP", "FP", "FN"], "title": "ClassificationWithReason", "type": "object",
}


def _sr(statement: str, reason: str) -> dict[str, str]:
    return {"statement": statement, "reason": reason}


CLASSIFY_EXAMPLES = [
    (
        {"question": "What powers the sun and what is its primary function?",
         "answer": [
             "The sun is powered by nuclear fission, similar to nuclear reactors on Earth.",
             "The primary function of the sun is to provide light to the solar system.",
         ],
         "ground_truth": [
             "The sun is powered by nuclear fusion, where hydrogen atoms fuse to form helium.",
             "This fusion process in the sun's core releases a tremendous amount of energy.",
             "The energy from the sun provides heat and light, which are essential for life on Earth.",
             "The sun's light plays a critical role in Earth's climate system.",
             "Sunlight helps to drive the weather and ocean currents.",
         ]},
        {"TP": [_sr("The primary function of the sun is to provide light to the solar system.",
                    "This statement is somewhat supported by the ground truth mentioning the sun providing light and "
                    "its roles, though it focuses more broadly on the sun's energy.")],
         "FP": [_sr("The sun is powered by nuclear fission, similar to nuclear reactors on Earth.",
                    "This statement is incorrect and contradicts the ground truth which states that the sun is "
                    "powered by nuclear fusion.")],
         "FN": [
             _sr("The sun is powered by nuclear fusion, where hydrogen atoms fuse to form helium.",
                 "This accurate description of the sun's power source is not included in the answer."),
             _sr("This fusion process in the sun's core releases a tremendous amount of energy.",
                 "This process and its significance are not mentioned in the answer."),
             _sr("The energy from the sun provides heat and light, which are essential for life on Earth.",
                 "The answer only mentions light, omitting the essential aspects of heat and its necessity for "
                 "life, which the ground truth covers."),
             _sr("The sun's light plays a critical role in Earth's climate system.",
                 "This broader impact of the sun's light on Earth's climate system is not addressed in the answer."),
             _sr("Sunlight helps to drive the weather and ocean currents.",
                 "The effect of sunlight on weather patterns and ocean currents is omitted in the answer."),
         ]},
    ),
    (
        {"question": "What is the boiling point of water?",
         "answer": ["The boiling point of water is 100 degrees Celsius at sea level"],
         "ground_truth": [
             "The boiling point of water is 100 degrees Celsius (212 degrees Fahrenheit) at sea level.",
             "The boiling point of water can change with altitude.",
         ]},
        {"TP": [_sr("The boiling point of water is 100 degrees Celsius at sea level",
                    "This statement is directly supported by the ground truth which specifies the boiling point of "
                    "water as 100 degrees Celsius at sea level.")],
         "FP": [],
         "FN": [_sr("The boiling point of water can change with altitude.",
                    "This additional information about how the boiling point of water can vary with altitude is not "
                    "mentioned in the answer.")]},
    ),
]


def _dump(obj: object) -> str:
    return json.dumps(obj, indent=4, ensure_ascii=False)


def render_prompt(instruction: str, schema: dict, examples: list[tuple[dict, dict]], data: dict) -> str:
    """The prompt as ragas's ``PydanticPrompt.to_string()`` lays it out."""
    shots = "\n\n".join(f"Example {i}\nInput: {_dump(inp)}\nOutput: {_dump(out)}"
                        for i, (inp, out) in enumerate(examples, 1))
    return (f"{instruction}\n"
            "Please return the output in a JSON format that complies with the following schema as specified in "
            f"JSON Schema:\n{json.dumps(schema)}"
            "Do not use single quotes in your response but double quotes,properly escaped with a backslash.\n\n"
            f"--------EXAMPLES-----------\n{shots}\n-----------------------------\n\n"
            f"Now perform the same with the following input\ninput: {_dump(data)}\nOutput: ")


def statements_prompt(question: str, text: str) -> str:
    return render_prompt(STATEMENT_INSTRUCTION, STATEMENT_SCHEMA, STATEMENT_EXAMPLES,
                         {"question": question, "answer": text})


def classify_prompt(question: str, answer_statements: list[str], truth_statements: list[str]) -> str:
    return render_prompt(CLASSIFY_INSTRUCTION, CLASSIFY_SCHEMA, CLASSIFY_EXAMPLES,
                         {"question": question, "answer": answer_statements, "ground_truth": truth_statements})


# ----- reading the judge's replies ---------------------------------------------------------------------------------
class JudgeReplyError(ValueError):
    """The judge's reply is not JSON of the asked shape."""


def _snippet(text: str) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= 120 else flat[:117] + "..."


def first_json_object(text: str) -> dict:
    """The first JSON object in a reply (inside a ```json fence or with text around it)."""
    decoder = json.JSONDecoder()
    start = (text or "").find("{")
    while start != -1:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict):
            return obj
        start = text.find("{", start + 1)
    raise JudgeReplyError(f"the reply holds no JSON object: {_snippet(text)!r}")


def parse_statements(text: str) -> list[str]:
    """``{"statements": [str, ...]}`` → the statements (blank ones dropped)."""
    obj = first_json_object(text)
    items = obj.get("statements")
    if not isinstance(items, list) or not all(isinstance(s, str) for s in items):
        raise JudgeReplyError(f'the reply is not {{"statements": [string, ...]}}: {_snippet(text)!r}')
    return [s.strip() for s in items if s.strip()]


def parse_classification(text: str) -> dict[str, list[dict[str, str]]]:
    """``{"TP": [...], "FP": [...], "FN": [...]}``, each item ``{"statement": str, "reason": str}``."""
    obj = first_json_object(text)
    out: dict[str, list[dict[str, str]]] = {}
    for key in ("TP", "FP", "FN"):
        items = obj.get(key)
        if not isinstance(items, list):
            raise JudgeReplyError(f"the reply lacks a list for {key}: {_snippet(text)!r}")
        for item in items:
            if not (isinstance(item, dict) and isinstance(item.get("statement"), str)
                    and isinstance(item.get("reason"), str)):
                raise JudgeReplyError(f'an item of {key} is not {{"statement": string, "reason": string}}: '
                                      f"{_snippet(text)!r}")
        out[key] = [{"statement": i["statement"], "reason": i["reason"]} for i in items]
    return out


# ----- the metric ---------------------------------------------------------------------------------------------------
class AnswerCorrectness:
    name = "answer_correctness"
    needs = ("question", "answer", "truth")

    def __init__(self, judge: Provider, embed: Embed) -> None:
        self.judge = judge
        self.embed = embed
        self.label = f"Answer correctness (RAGAS, judge: {judge.id})"

    def applies(self, sample: Sample, mode: str) -> bool:
        return not sample.closed

    def _ask(self, prompt: str, max_tokens: int) -> str:
        return self.judge.generate(Request(prompt=prompt, system="", max_tokens=max_tokens)).text

    def _result(self, value: float | None, status: str, details: dict) -> MetricResult:
        return MetricResult(self.name, value, status, details, scorer=self.judge.id)

    def score(self, sample: Sample) -> MetricResult:
        answer, truth, question = sample.answer or "", sample.truth or "", sample.question or ""
        if not answer.strip():
            return self._result(0.0, NO_ANSWER, {"factual": 0.0, "semantic": 0.0})
        step = "statements"
        try:
            answer_statements = parse_statements(self._ask(statements_prompt(question, answer), STATEMENTS_MAX_TOKENS))
            truth_statements = parse_statements(self._ask(statements_prompt(question, truth), STATEMENTS_MAX_TOKENS))
            classes = None
            if answer_statements or truth_statements:
                step = "classification"
                classes = parse_classification(self._ask(classify_prompt(question, answer_statements, truth_statements),
                                                          CLASSIFY_MAX_TOKENS))
        except (ProviderError, JudgeReplyError) as exc:
            return self._result(None, JUDGE_FAILED, {"error": redact(f"{step}: {exc}"), "step": step})
        except Exception as exc:  # noqa: BLE001 - a judge that breaks in any way is a judge failure, retried later
            return self._result(None, JUDGE_FAILED, {"error": f"{step}: unexpected failure ({type(exc).__name__})",
                                                     "step": step})
        tp, fp, fn = (len(classes[k]) for k in ("TP", "FP", "FN")) if classes else (0, 0, 0)
        semantic = cosine(self.embed, answer, truth)
        details = {"semantic": round(semantic, 4), "tp": tp, "fp": fp, "fn": fn,
                   "answer_statements": answer_statements, "truth_statements": truth_statements}
        factual = f1_from_counts(tp, fp, fn)
        if factual is None:
            return self._result(None, NO_STATEMENTS, {"factual": None, **details})
        value = round(W_FACTUAL * factual + W_SEMANTIC * semantic, 4)
        return self._result(value, OK, {"factual": round(factual, 4), **details})


# The judge's templates, rendered with placeholders: their hashes go into run manifests.
PROMPTS = {
    "ragas_statements": statements_prompt("{question}", "{text}"),
    "ragas_correctness_classifier": classify_prompt("{question}", ["{answer_statement}"], ["{truth_statement}"]),
}
