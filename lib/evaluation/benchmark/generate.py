"""Generate NEPAQuAD-style items from gold passages, as the paper did: per question type, a model writes
question/answer/proof rows as CSV; strict parsing drops malformed output; a proof check drops rows whose proof
is not in the passage. Counts are reported as generated → well-formed → kept."""
from __future__ import annotations

import csv
import io
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from lib.core.progress import CountProgressFn
from lib.documents.chunking import Chunk
from lib.evaluation.benchmark.dataset import QUESTION_TYPES, Item
from lib.evaluation.metrics.passage_overlap import overlap_coefficient
from lib.models.base import Provider, ProviderError, Request

# Our summaries of the question-type definitions of NEPAQuAD (Phan et al. 2024, Appendix A).
DEFINITIONS = {
    "closed": "answerable with yes or no (or true or false).",
    "comparison": "asks to compare two or more things: alternatives, sites, studies, outcomes.",
    "convergent": "narrows towards a single best answer or solution by reasoning from the facts given.",
    "divergent": "open-ended, with no single right answer; invites opinion, often about future possibilities.",
    "evaluation": "a high-level question that judges whether an analysis, policy or conclusion is sound.",
    "funnel": "a short series of questions that starts broad and open and narrows to specific or closed ones.",
    "inference": "needs inductive or deductive reasoning from stated facts to reach an unstated conclusion.",
    "problem-solving": "presents a scenario or task and asks for a solution or a produced artefact.",
    "process": "probes how something is done: the steps, procedure or method, in detail.",
    "recall": "asks for a specific fact stated in the document.",
}

# The same definitions as whole sentences, for reviewers (the Validate page's guidelines and review panel).
GUIDELINES = {
    "closed": "A closed question can be answered with yes or no (or true or false).",
    "comparison": "A comparison question asks to compare two or more things: alternatives, sites, studies or outcomes.",
    "convergent": "A convergent question narrows towards a single best answer by reasoning from the facts given.",
    "divergent": "A divergent question is open-ended, with no single right answer; it invites opinion, often about "
                 "future possibilities.",
    "evaluation": "An evaluation question asks for a judgement: whether an analysis, policy or conclusion is sound.",
    "funnel": "A funnel question is a short series of questions that starts broad and narrows to specific or "
              "closed ones.",
    "inference": "An inference question needs inductive or deductive reasoning from stated facts to reach an "
                 "unstated conclusion.",
    "problem-solving": "A problem-solving question presents a scenario or task and asks for a solution or a "
                       "produced artefact.",
    "process": "A process question asks how something is done: the steps, procedure or method, in detail.",
    "recall": "A recall question asks for a specific fact stated in the document.",
}

# Sample questions per type, from the paper's Appendix B (data, used as few-shot examples).
EXAMPLES = {
    "closed": ["Did the EIS consider [SUBJECT]?", "Did [AGENCY] approve the licensing action?"],
    "comparison": ["Compare the considered alternatives in [PROJECT 1] with those in [PROJECT 2]."],
    "convergent": ["How many similar projects could be built before the impact level for air quality was rated as high?"],
    "divergent": ["What considerations should the [AGENCY] have addressed in the document but didn't?"],
    "evaluation": ["In the license renewal EIS for [PROJECT], which impacts have changed from the initial EIS and why?"],
    "funnel": ["Which alternatives were discussed? Which were considered? Why was [ALTERNATIVE] not considered?"],
    "inference": ["If mitigations for air quality for [PROJECT 1] were effective and the same mitigations were applied "
                  "to [PROJECT 2], what would we assume the outcome to be for [PROJECT 2]?"],
    "problem-solving": ["Write an abstract for [PROJECT]."],
    "process": ["How does [AGENCY] define the area of effect for the proposed action?"],
    "recall": ["Which resource areas indicated a moderate or large impact due to the proposed action?"],
}

PROMPT = """You write benchmark questions about an Environmental Impact Statement.
Question type: {qtype}. A {qtype} question is {definition}
Example {qtype} questions (templates): {examples}

Passage (page {page}):
\"\"\"
{passage}
\"\"\"

Write {n} {qtype} question(s) answerable from the passage. For each, give the answer{closed_rule} and the proof:
a sentence copied word for word from the passage that supports the answer.
Output CSV only, with the header line exactly: question,answer,proof
Quote every field with double quotes."""

PROOF_MIN_OVERLAP = 0.5  # word-trigram overlap coefficient of the proof with the passage


@dataclass
class GenerationReport:
    generated: int = 0  # rows asked for
    well_formed: int = 0
    kept: int = 0
    items: list[Item] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def pick_passages(chunks: Sequence[Chunk], n: int = 10, proportion: tuple[int, int, int] = (2, 6, 2)) -> list[Chunk]:
    """Chunks spread over the beginning, middle and end thirds of the document in the given proportion."""
    if not chunks:
        return []
    total = sum(proportion)
    counts = [round(n * p / total) for p in proportion]
    counts[1] += n - sum(counts)
    third = len(chunks) / 3
    picked: list[Chunk] = []
    for part, want in enumerate(counts):
        lo, hi = int(part * third), max(int((part + 1) * third), int(part * third) + 1)
        pool = list(chunks[lo:hi])
        if not pool or want <= 0:
            continue
        step = len(pool) / want
        picked += [pool[min(len(pool) - 1, int(i * step + step / 2))] for i in range(want)]
    return list(dict.fromkeys(picked))


def position_of(chunk: Chunk, n_pages: int) -> str:
    frac = chunk.page_start / max(1, n_pages)
    return "beginning" if frac <= 1 / 3 else ("middle" if frac <= 2 / 3 else "end")


def parse_generated_csv(text: str, qtype: str) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Rows (question, answer, proof) from a model's CSV, strictly: the header must be question,answer,proof."""
    body = (text or "").strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("csv").strip()
    lines = body.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip().lower().replace('"', "").replace(" ", "") == "question,answer,proof"), None)
    if start is None:
        return [], ["no 'question,answer,proof' header"]
    rows, problems = [], []
    try:
        reader = list(csv.reader(io.StringIO("\n".join(lines[start + 1:]))))
    except csv.Error as exc:
        return [], [f"malformed CSV ({exc})"]
    for row in reader:
        if not row or not any(c.strip() for c in row):
            continue
        if len(row) != 3 or not all(c.strip() for c in row):
            problems.append(f"row with {len(row)} field(s) or an empty field")
            continue
        q, a, p = (c.strip() for c in row)
        if qtype == "closed" and a.lower().rstrip(".") not in ("yes", "no"):
            problems.append(f"closed answer '{a[:30]}' is not yes/no")
            continue
        rows.append((q, a.lower().rstrip(".") if qtype == "closed" else a, p))
    return rows, problems


def generate(
    provider: Provider, passages: Sequence[Chunk], doc_name: str, n_pages: int,
    per_type: dict[str, int] | None = None, progress: CountProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> GenerationReport:
    """Ask the model for items passage by passage. With ``cancel`` (a threading.Event) set, it stops between
    passages and returns what it has, so a cancelled job keeps its finished items."""
    per_type = per_type or {t: (10 if t == "closed" else 2) for t in QUESTION_TYPES}
    report = GenerationReport()
    stamp = time.strftime("%Y%m%d%H%M%S")
    jobs = [(c, t, n) for c in passages for t, n in per_type.items() if n > 0]
    for j, (chunk, qtype, n) in enumerate(jobs, start=1):
        if cancel is not None and cancel.is_set():
            break
        report.generated += n
        prompt = PROMPT.format(qtype=qtype, definition=DEFINITIONS[qtype], examples=" | ".join(EXAMPLES[qtype]),
                               page=chunk.page_start, passage=chunk.text, n=n,
                               closed_rule=" (yes or no)" if qtype == "closed" else "")
        try:
            out = provider.generate(Request(prompt=prompt, max_tokens=180 * n))
            rows, problems = parse_generated_csv(out.text, qtype)
        except ProviderError as exc:
            rows, problems = [], [str(exc)]
        except Exception as exc:  # noqa: BLE001 - one passage's failure is reported, the others go on
            rows, problems = [], [f"unexpected failure ({type(exc).__name__})"]
        rows = rows[:n]
        report.problems += [f"p.{chunk.page_start} {qtype}: {p}" for p in problems]
        report.well_formed += len(rows)
        for q, a, proof in rows:
            if overlap_coefficient(proof, chunk.text) < PROOF_MIN_OVERLAP and proof not in chunk.text:
                report.problems.append(f"p.{chunk.page_start} {qtype}: proof not found in the passage")
                continue
            report.kept += 1
            report.items.append(Item(
                id=f"GEN{stamp}-{len(report.items) + 1:04d}", question_type=qtype, question=q, answer=a,
                context=chunk.text, doc=doc_name, proof=proof, page_number=chunk.page_start,
                position=position_of(chunk, n_pages)))
        if progress:
            progress(j, len(jobs), f"p.{chunk.page_start} · {qtype}")
    return report
