"""Builds the support checker's labelled evaluation set (data/support/, its guide in data/support/GUIDE.md).

    python bench/support_data.py answers     # real answers: SmolLM2 and the extractive baseline, gold mode
    python bench/support_data.py build       # data/support/sentences.jsonl: every sentence, with its label where
                                             # it has one (the changes' by rule, the rest from labels_*.jsonl)

Passages are NEPAQuAD 1.0's gold contexts (data/nepa/NEPAQuAD1_train.csv), split by passage: the test split is two
whole EISs that train never sees (Goldrush Mine, Sea Port Oil Terminal); dev is two passages of each other EIS; train
is the rest (data/support/passages.jsonl says which). Sources of the answers' sentences:
- ``smollm2`` and ``extractive``: the app's own answers (``lib.qa.ask.ask``, gold mode), labelled by hand;
- ``written:paraphrase|elaboration|partial``: sentences written for the set, labelled as they were written;
- ``changed:*``: a supported sentence changed by a rule here, labelled by what the change does.
"""
from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DATA = Path(__file__).resolve().parent.parent / "data" / "support"
SMOL_PER_PASSAGE = {"test": 7, "dev": 5, "train": 4}
EXTRACTIVE_PER_PASSAGE = {"test": 2, "dev": 1, "train": 1}


def _read(name: str) -> list[dict]:
    path = DATA / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] \
        if path.exists() else []


def _write(name: str, rows: list[dict]) -> None:
    (DATA / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def passages() -> list[dict]:
    return _read("passages.jsonl")


def _questions(p: dict) -> list[dict]:
    """The passage's open questions (closed ones get a bare yes or no from SmolLM2), in ID order."""
    return sorted((q for q in p["questions"] if q["type"] != "closed"), key=lambda q: q["id"])


def answers() -> None:
    """SmolLM2's and the extractive baseline's answers to a few open questions per passage, as the app gives them
    (gold mode): data/support/responses.jsonl. Runs once; rows already there are kept."""
    from lib.qa.ask import ask

    done = {r["response_id"]: r for r in _read("responses.jsonl")}
    for p in passages():
        qs = _questions(p)
        plan = [("local/smollm2-135m", "smollm2", q) for q in qs[: SMOL_PER_PASSAGE[p["split"]]]]
        plan += [("local/extractive", "extractive", q) for q in qs[-EXTRACTIVE_PER_PASSAGE[p["split"]]:]]
        for model, source, q in plan:
            rid = f"{source}:{q['id']}"
            if rid in done:
                continue
            res = ask(q["question"], model, "gold", gold=p["text"], closed=False)
            if res.error or not res.answer:
                print(f"{rid}: no answer ({res.error})", file=sys.stderr)
                continue
            done[rid] = {"response_id": rid, "passage_id": p["passage_id"], "split": p["split"], "source": source,
                         "question": q["question"], "answer": res.answer}
            _write("responses.jsonl", list(done.values()))
            print(rid, round(res.seconds, 1), "s", flush=True)


# ----- programmatic changes ---------------------------------------------------------------------------------------
_NUM = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w])")
_AUX = re.compile(r"\b(is|are|was|were|would|will|could|can|should|may|must|has|have|had|does|do)\b(?!\s+not\b)")
_NOT = re.compile(r"\b(is|are|was|were|would|will|could|can|should|may|must|has|have|had|does|do) not\b")
_NAME = re.compile(r"\b([A-Z][a-z]+(?: (?:of |and |the )?[A-Z][a-z]+)+)\b")
LEAD_INS = ("The question asks {q}", "To answer the question, we need to look at what the passage says.",
            "Here is what the provided passage says about this question.",
            "Based on the information provided, I will answer the question.")
REFUSALS = ("The passage does not provide enough information to answer this question.",
            "I cannot determine the answer from the given context.",
            "Unfortunately, the provided text does not contain the answer to this question.")
REMARKS = ("The passage discusses {topic}.", "The provided context describes several aspects of {topic}.")
INVENTED = (", which would also require a new 20-mile access road", " and was approved by the state legislature in 2019",
            ", and the cost is estimated at $45 million", " because of strong public opposition during scoping",
            ", a measure the U.S. Fish and Wildlife Service rejected")


def _change_number(s: str, passage: str, rng: random.Random) -> str | None:
    nums = [m for m in _NUM.finditer(s) if not (1900 <= float(m.group(1).replace(",", "")) <= 2100)]
    if not nums:
        return None
    m = rng.choice(nums)
    raw = m.group(1)
    value = float(raw.replace(",", ""))
    for factor in (2, 3, 0.5, 1.5, 4):
        new = value * factor
        text = (f"{new:,.0f}" if "," in raw else f"{new:.0f}") if "." not in raw else f"{new:.{len(raw.split('.')[1])}f}"
        if text != raw and not re.search(rf"(?<![\d.,]){re.escape(text)}(?![\d])", passage):
            return s[: m.start(1)] + text + s[m.end(1):]
    return None


def _negate(s: str) -> str | None:
    if _NOT.search(s):
        return _NOT.sub(lambda m: m.group(1), s, count=1)
    m = _AUX.search(s)
    return s[: m.end()] + " not" + s[m.end():] if m else None


def _swap_name(s: str, others: list[str], rng: random.Random) -> str | None:
    names = [m for m in _NAME.finditer(s) if m.start() > 0]
    pool = [n for n in others if n.lower() not in s.lower()]
    if not names or not pool:
        return None
    m = rng.choice(names)
    return s[: m.start()] + rng.choice(pool) + s[m.end():]


def _invent(s: str, rng: random.Random) -> str:
    return s.rstrip(" .") + rng.choice(INVENTED) + "."


def build() -> None:
    """Every sentence to label: the real answers' sentences (label empty, to be given by hand, unless a labels file
    has them), the written sentences, and the programmatic changes of supported sentences, labelled."""
    from lib.qa.support import answer_sentences, bare

    rng = random.Random(36)
    ps = {p["passage_id"]: p for p in passages()}
    names_by_doc: dict[str, list[str]] = {}
    for p in ps.values():
        names_by_doc.setdefault(p["doc"], []).extend(m.group(1) for m in _NAME.finditer(p["text"]))
    rows: list[dict] = []
    responses = _read("responses.jsonl")

    def add(rid: str, pid: str, source: str, question: str, answer: str, labels: list[str | None]) -> None:
        sents = [bare(s) for s in answer_sentences(answer)[0]]
        if len(labels) == 1 and len(sents) != 1:
            return  # a written or changed sentence the splitter does not see as one sentence: left out
        for k, s in enumerate(sents):
            rows.append({"sentence_id": f"{rid}#{k}", "response_id": rid, "passage_id": pid,
                         "split": ps[pid]["split"], "source": source, "question": question, "answer": answer,
                         "sentence": s, "label": labels[k] if k < len(labels) else None})

    for r in responses:
        add(r["response_id"], r["passage_id"], r["source"], r["question"], r["answer"], [])
    for name in ("written_traindev.jsonl", "written_test.jsonl"):
        for i, w in enumerate(_read(name)):
            add(f"written:{w['passage_id']}:{i}", w["passage_id"], f"written:{w['kind']}", "", w["sentence"],
                [w["label"]])
    # changes of the extractive baseline's quotes (whole sentences of the passage: supported as they stand)
    quotes = [(r, bare(s)) for r in responses if r["source"] == "extractive" for s in answer_sentences(r["answer"])[0]]
    for i, (r, q) in enumerate(quotes):
        p = ps[r["passage_id"]]
        other_docs = [d for d in names_by_doc if d != p["doc"]]
        others = [n for d in other_docs for n in names_by_doc[d] if len(n.split()) >= 2]
        changes = {"changed:number": (_change_number(q, p["text"], rng), "unsupported"),
                   "changed:negation": (_negate(q), "unsupported"),
                   "changed:name": (_swap_name(q, others, rng), "unsupported"),
                   "changed:invented-clause": (_invent(q, rng), "partly")}
        for kind, (text, label) in changes.items():
            if text and text != q:
                add(f"{kind}:{i}", r["passage_id"], kind, r["question"], text, [label])
        # a lead-in or a remark before the quote: the response is as supported as the quote
        lead = rng.choice(LEAD_INS).format(q=r["question"][0].lower() + r["question"][1:].rstrip("?") + ".")
        add(f"changed:lead-in:{i}", r["passage_id"], "changed:lead-in", r["question"], f"{lead} {q}",
            ["no_claim", "supported"])
        if i % 2 == 0:
            add(f"changed:refusal:{i}", r["passage_id"], "changed:refusal", r["question"], rng.choice(REFUSALS),
                ["no_claim"])
        else:
            topic = " ".join(r["question"].rstrip("?").split()[-4:])
            add(f"changed:remark:{i}", r["passage_id"], "changed:remark", r["question"],
                rng.choice(REMARKS).format(topic=topic), ["no_claim"])
        # a sentence of another EIS's passage in the same split, as if it answered this one
        pool = [x for x in quotes if ps[x[0]["passage_id"]]["doc"] != p["doc"]
                and ps[x[0]["passage_id"]]["split"] == p["split"]]
        if pool:
            add(f"changed:swapped:{i}", r["passage_id"], "changed:swapped-passage", r["question"],
                rng.choice(pool)[1], ["unsupported"])
    labels = {}
    for name in sorted(DATA.glob("labels_*.jsonl")):
        for row in _read(name.name):
            labels[row["sentence_id"]] = row
    for row in rows:
        if row["label"] is None and row["sentence_id"] in labels:
            row["label"] = labels[row["sentence_id"]]["label"]
            row["note"] = labels[row["sentence_id"]].get("note", "")
    _write("sentences.jsonl", rows)
    todo = [r for r in rows if r["label"] is None]
    print(f"{len(rows)} sentences, {len(todo)} without a label")


if __name__ == "__main__":
    {"answers": answers, "build": build}[sys.argv[1] if len(sys.argv) > 1 else "build"]()
