"""The judge support checker: a connected model marks each sentence of an answer against its numbered passages
(RAGAS-style faithfulness: one verdict per sentence against the context), with structured output where the model
has it (a JSON schema or a forced tool call). Its marks are the offline checker's names, but its figures never
share a column with them (``checker`` says which made a report).

A reply is checked like untrusted input: a verdict for a sentence that does not exist, a second verdict for one,
a verdict word outside the three, a source that is not a passage, or a sentence left without a verdict is a
failure, counted and listed, and that sentence is marked "not judged". Nothing is dropped."""
from __future__ import annotations

import json
import re
from collections.abc import Sequence

from lib.core.errors import UserError
from lib.models import prompts
from lib.models.base import Answer, Provider, ProviderError, Request
from lib.qa.citations import cited_numbers
from lib.qa.support import (
    NO_SOURCE,
    NOT_JUDGED,
    PARTLY,
    SUPPORTED,
    UNSUPPORTED,
    Passage,
    SentenceCheck,
    SupportReport,
    answer_sentences,
    bare,
    overall,
)

CHECKER = "judge"
VERDICTS = (SUPPORTED, PARTLY, UNSUPPORTED)
MAX_REASON = 500
SCHEMA = {
    "type": "object",
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object",
        "properties": {"sentence": {"type": "integer"}, "verdict": {"type": "string", "enum": list(VERDICTS)},
                       "source": {"type": ["integer", "null"]}, "reason": {"type": "string"}},
        "required": ["sentence", "verdict", "source", "reason"], "additionalProperties": False}}},
    "required": ["verdicts"], "additionalProperties": False,
}


def _reply_object(answer: Answer) -> dict | None:
    obj = answer.extra.get("structured") if isinstance(getattr(answer, "extra", None), dict) else None
    if isinstance(obj, dict):
        return obj
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", (answer.text or "").strip())
    a, b = text.find("{"), text.rfind("}")
    if a < 0 or b <= a:
        return None
    try:
        obj = json.loads(text[a:b + 1])
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def judge_check(answer: str, passages: Sequence[Passage], model: Provider) -> SupportReport:
    """Ask ``model`` for a verdict on each sentence of ``answer`` against ``passages``."""
    if not model.judges_reliably:
        raise UserError(f"{model.label or model.id} cannot judge support "
                        "reliably: configure a connected model (OpenAI, Anthropic, an OpenAI-compatible server or a "
                        "larger local GGUF model), or use the offline checker.")
    sentences, inherited = answer_sentences(answer)
    numbers = {p.n for p in passages}
    checks = []
    for i, s in enumerate(sentences):
        cites = sorted(cited_numbers(s, max_n=99)) or inherited.get(i, [])
        checks.append(SentenceCheck(s, NO_SOURCE if not passages else NOT_JUDGED, None, None, cites=cites))
    invalid = sorted(n for n in cited_numbers(answer, max_n=99) if n not in numbers)
    misattributed: list[dict] = []
    citations = {"valid": sum(1 for c in checks for n in c.cites if n in numbers), "invalid": invalid,
                 "misattributed": misattributed}
    asked = [i for i, c in enumerate(checks) if c.status == NOT_JUDGED]
    failures: list[dict] = []
    if asked:
        listing = "\n\n".join(f"[{p.n}]" + (f" ({p.page})" if p.page else "") + f"\n{p.text}" for p in passages)
        numbered = "\n".join(f"{k}. {bare(sentences[i])}" for k, i in enumerate(asked, start=1))
        req = Request(prompt=prompts.SUPPORT_JUDGE.format(passages=listing, sentences=numbered),
                      system=prompts.SUPPORT_SYSTEM, max_tokens=200 + 120 * len(asked), schema=SCHEMA,
                      schema_name="support_verdicts")
        try:
            reply = model.generate(req)
        except ProviderError as exc:  # the server's failure, not the user's mistake: kept as such (CLI: exit 1)
            raise ProviderError(f"The judge call failed: {exc}") from exc
        obj = _reply_object(reply)
        verdicts = obj.get("verdicts") if obj else None
        if not isinstance(verdicts, list):
            failures.append({"sentence": None, "reason": "the reply holds no list of verdicts"})
            verdicts = []
        seen: set[int] = set()
        for v in verdicts:
            k = v.get("sentence") if isinstance(v, dict) else None
            if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= len(asked):
                failures.append({"sentence": k if isinstance(k, int) else None,
                                 "reason": "a verdict for a sentence the answer does not have"})
                continue
            if k in seen:
                failures.append({"sentence": k, "reason": "a second verdict for the same sentence"})
                continue
            seen.add(k)
            word = v.get("verdict")
            source = v.get("source")
            if word not in VERDICTS:
                failures.append({"sentence": k, "reason": f"a verdict outside {', '.join(VERDICTS)}"})
                continue
            if source is not None and (not isinstance(source, int) or isinstance(source, bool) or source not in numbers):
                failures.append({"sentence": k, "reason": "a source that is not one of the passages"})
                continue
            c = checks[asked[k - 1]]
            c.status = word
            reason = " ".join(str(v.get("reason") or "").split())[:MAX_REASON]
            passage = next((p for p in passages if p.n == source), None)
            c.evidence = {"source": source, "page": passage.page if passage else "", "text": reason}
            for cited in (n for n in c.cites if n in numbers):  # the judge's source, or any cited one if it named none
                c.holds[cited] = word != UNSUPPORTED and source in (None, cited)
            if c.cites and source is not None and source not in c.cites and word != UNSUPPORTED:
                misattributed.append({"sentence": c.text, "cited": c.cites, "found_in": source})
        for k in range(1, len(asked) + 1):
            if k not in seen:
                failures.append({"sentence": k, "reason": "no verdict for this sentence"})
    for f in failures:  # said in the answer's own numbering of sentences, from 1
        if isinstance(f.get("sentence"), int) and 1 <= f["sentence"] <= len(asked):
            f["sentence"] = asked[f["sentence"] - 1] + 1
    return SupportReport(CHECKER, overall(checks), checks, citations, failures)
