"""A judge model votes on the arena's pairs the experts voted on, blind and in both orders, and is checked against
the experts (issue 14).

Each pair is shown to the judge twice: once with the pair's first answer as A, once with it as B. A verdict that
holds in both orders stands; one that flips with the order (or that is a preference in one order and a tie in the
other) counts as a tie. "Both bad" in both orders stays "both bad". The judge's votes are kept in their own table,
never among the experts' votes or in the ratings. Agreement with the experts is read per expert vote, on three
categories (first better, second better, no preference: a tie or both bad), as percent and Cohen's κ with n.
"""
from __future__ import annotations

import json
import re
import threading
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from lib.core.access import Action, authorize
from lib.core.pool import run_tasks
from lib.core.progress import CountProgressFn
from lib.core.redaction import redact
from lib.core.stats.agreement import TwoRaters, two_rater_agreement
from lib.models import registry
from lib.models.base import Provider, ProviderError, Request
from lib.review import arena
from lib.storage import tables
from lib.storage.audit import connected_run
from lib.storage.engine import get_engine, upsert

MAX_REPLY_TOKENS = 40
RAW_LIMIT = 2000
CHOICES = {"a": "A", "b": "B", "tie": "tie", "both_bad": "both_bad", "both bad": "both_bad", "both-bad": "both_bad"}

SYSTEM = ("You are an expert reviewer of U.S. National Environmental Policy Act (NEPA) documents. You compare two "
          "answers to a question about an Environmental Impact Statement (EIS), exactly as a NEPA expert would, and "
          "reply with a JSON object only.")

PROMPT = """Question about an Environmental Impact Statement:
{question}

Passages from the EIS (the reference; may be empty):
\"\"\"
{passages}
\"\"\"

Answer A:
\"\"\"
{a}
\"\"\"

Answer B:
\"\"\"
{b}
\"\"\"

Which answer is better: more correct, better supported by the EIS, and more complete? Do not prefer an answer for
its length, its style or its position. Reply with only this JSON object:
{{"better": "A"}} or {{"better": "B"}} or {{"better": "tie"}} (equally good) or {{"better": "both_bad"}} (neither is
acceptable)."""


def _engine(engine: Engine | None) -> Engine:
    return engine or get_engine()


def render(pair: arena.Pair, a: str, b: str, passage_chars: int = 6000) -> str:
    parts = []
    if pair.gold:
        parts.append(pair.gold.strip())
    for p in pair.passages:
        head = f"[{p.n}] " if p.n else ""
        parts.append(f"{head}(p. {p.page_start}) {p.text.strip()}" if p.page_start else head + p.text.strip())
    text = "\n\n".join(parts)
    if len(text) > passage_chars:
        text = text[:passage_chars].rstrip() + " […]"
    return PROMPT.format(question=pair.question, passages=text or "(none)", a=a, b=b)


def parse_reply(text: str) -> str:
    """"A", "B", "tie" or "both_bad" from the judge's reply; ValueError (a plain, key-free reason) otherwise. A reply
    is read as JSON ``{"better": …}``; a bare choice (``B``, ``"tie"``) is accepted too. Anything else, such as
    "A or B", is not guessed at."""
    s = (text or "").strip()
    m = re.match(r"^```(?:json)?\s*(.*?)\s*```$", s, re.S | re.I)
    if m:
        s = m.group(1)
    value: Any = None
    start, end = s.find("{"), s.rfind("}")
    if 0 <= start < end:
        try:
            obj = json.loads(s[start:end + 1])
        except json.JSONDecodeError:
            raise ValueError("the reply is not valid JSON") from None
        if not isinstance(obj, dict) or "better" not in obj:
            raise ValueError('the reply has no "better" value')
        value = obj["better"]
    else:
        value = s.strip().strip("\"'.!").strip()
    choice = CHOICES.get(value.strip().lower()) if isinstance(value, str) else None
    if choice is None:
        said = " ".join(str(value).split())
        said = said if len(said) <= 40 else said[:40] + " …"
        raise ValueError(f"it answered “{said}”, not A, B, tie or both_bad")
    return choice


def combine(first_order: str, second_order: str) -> str:
    """The judge's verdict from its two readings (each already mapped to first / second / tie / both_bad): a verdict
    that holds in both orders stands; anything else is a tie."""
    return first_order if first_order == second_order else "tie"


def _as_pair_order(choice: str, first_is_a: bool) -> str:
    if choice in ("tie", "both_bad"):
        return choice
    return "first" if (choice == "A") == first_is_a else "second"


def _upsert(engine: Engine, row: dict) -> Any:
    return upsert(engine, tables.arena_judge_votes, {**row, "created_at": func.now()}, ("arena_id", "pair_key", "judge"),
                  ("first_order", "second_order", "verdict", "raw", "status", "error", "created_at"))


@dataclass(frozen=True)
class JudgeVote:
    """A judge's stored vote on one pair (a row of ``arena_judge_votes``): its reading in each order, the verdict
    they make together, and why there is none when the call failed or the reply could not be read."""

    id: int
    arena_id: str
    pair_key: str
    judge: str
    first_order: str | None  # first | second | tie | both_bad, with the pair's first answer shown as A
    second_order: str | None  # the same with the order swapped, mapped back
    verdict: str | None  # None when the call failed or the reply was unreadable
    raw: str | None
    status: str  # ok | failed (the call) | unreadable (the reply)
    error: str | None
    created_at: str


@dataclass(frozen=True)
class JudgedPairs:
    """What one ``judge_pairs`` call did: pairs judged, replies that could not be read, calls that failed, and pairs
    left when it was cancelled."""

    judged: int = 0
    unreadable: int = 0
    failed: int = 0
    cancelled: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def judge_rows(arena_id: str, judge: str | None = None, engine: Engine | None = None) -> list[JudgeVote]:
    """The judge votes stored for an arena (one judge's, or every judge's), failures included, oldest first."""
    t = tables.arena_judge_votes
    q = select(t).where(t.c.arena_id == arena_id)
    if judge:
        q = q.where(t.c.judge == judge)
    with _engine(engine).connect() as c:
        return [JudgeVote(**{**r, "created_at": str(r["created_at"])}) for r in c.execute(q.order_by(t.c.id)).mappings()]


def judges(arena_id: str, engine: Engine | None = None) -> list[str]:
    return sorted({r.judge for r in judge_rows(arena_id, engine=engine)})


def pending(arena_id: str, judge: str, engine: Engine | None = None, retry_unreadable: bool = False) -> list[arena.Pair]:
    """The pairs experts voted on that this judge has not yet judged. Failed calls (a server error, a timeout) are
    asked again; unreadable replies are not, unless ``retry_unreadable`` (a model at temperature 0 says the same
    thing again)."""
    engine = _engine(engine)
    settled = ("ok",) if retry_unreadable else ("ok", "unreadable")
    done = {r.pair_key for r in judge_rows(arena_id, judge, engine) if r.status in settled}
    voted = {v.pair_key for v in arena.votes(arena_id, engine)}
    info = arena.get_arena(arena_id, engine)
    out = []
    for x, y in arena.arena_pairs(info, engine):
        pk = arena.pair_key(x.answer_id, y.answer_id)
        if pk in voted and pk not in done:
            out.append(arena.Pair(pk, x.item_key, x.question, x, y, x.gold or y.gold, arena.pair_passages(x, y)))
    return out


def judge_pairs(arena_id: str, model_id: str, engine: Engine | None = None,
                progress: CountProgressFn | None = None, cancel: threading.Event | None = None,
                max_workers: int = 4, retry_unreadable: bool = False) -> JudgedPairs:
    """Have a judge vote, in both orders, on every pair the experts voted on that it has not judged yet. Returns
    the counts (``JudgedPairs``). Each pair's two calls are saved together, with a key-free
    reason when they did not give a verdict: ``failed`` (the call failed: asked again next time) or ``unreadable``
    (the model's reply is not a choice: asked again only with ``retry_unreadable``)."""
    authorize(Action.RUN_BENCHMARK, f"judge arena {arena_id}")
    provider: Provider = registry.get_judge(model_id, "answers")
    judge = provider.id
    connected_run(provider, "judge")
    engine = _engine(engine)
    todo = pending(arena_id, judge, engine, retry_unreadable)
    counts: Counter[str] = Counter()
    cancel = cancel or threading.Event()
    lock = threading.Lock()

    def work(pair: arena.Pair) -> str:
        if cancel.is_set():
            with lock:
                counts["cancelled"] += 1
            return "cancelled"
        first, second = pair.pair_key.split("|")
        first_a = pair.left if pair.left.answer_id == first else pair.right
        second_a = pair.right if first_a is pair.left else pair.left
        raws, readings, error, status = [], [], None, "ok"
        try:
            for a, b, first_is_a in ((first_a, second_a, True), (second_a, first_a, False)):
                ans = provider.generate(Request(prompt=render(pair, a.text, b.text), system=SYSTEM,
                                                max_tokens=MAX_REPLY_TOKENS))
                raws.append(redact(ans.text)[:RAW_LIMIT])
                readings.append(_as_pair_order(parse_reply(ans.text), first_is_a))
        except ValueError as exc:
            error, status = redact(str(exc)), "unreadable"
        except ProviderError as exc:
            error, status = redact(str(exc)), "failed"
        except Exception as exc:  # noqa: BLE001 - one pair's failure is recorded and retried, never the batch's end
            error, status = redact(f"unexpected failure ({type(exc).__name__})"), "failed"
        ok = error is None
        with engine.begin() as c:
            c.execute(_upsert(engine, {
                "arena_id": arena_id, "pair_key": pair.pair_key, "judge": judge,
                "first_order": readings[0] if ok else None, "second_order": readings[1] if ok else None,
                "verdict": combine(*readings) if ok else None, "raw": "\n---\n".join(raws) or None,
                "status": status, "error": error}))
        with lock:
            counts["judged" if ok else status] += 1
        return "judged" if ok else f"{status} ({error})"

    run_tasks(work, [(p,) for p in todo], max_workers if provider.concurrent else 1, progress, cancel)
    return JudgedPairs(counts["judged"], counts["unreadable"], counts["failed"], counts["cancelled"])


def _three(v: str) -> str:
    return "no preference" if v in ("tie", "both_bad") else v


@dataclass(frozen=True)
class JudgeVsExperts:
    """A judge model against the experts in one arena (see ``judge_vs_experts``)."""

    judge: str
    n_judged: int
    n_failed: int
    n_unreadable: int
    n_flipped: int  # verdicts that flipped outright with the order
    n_changed: int  # verdicts that changed with the order in another way
    overall: TwoRaters  # per expert vote on a judged pair
    per_expert: dict[str, TwoRaters]
    vs_majority: TwoRaters  # per pair, against the experts' majority
    no_majority: int  # judged pairs without a strict majority


def judge_vs_experts(arena_id: str, judge: str, engine: Engine | None = None) -> JudgeVsExperts:
    """The judge against the experts, on three categories (first better, second better, no preference), as percent
    and Cohen's κ with n (``lib.core.stats.agreement.two_rater_agreement``), counted two ways:

    - ``overall`` and ``per_expert``: per expert vote on a judged pair (the unit is a vote; a pair several experts
      voted on counts once per expert, so n is votes, not independent pairs);
    - ``vs_majority``: per pair, against the experts' majority on it (pairs without a strict majority left out;
      the unit is a pair).

    Also how many pairs the judge judged and failed, how many of its verdicts flipped outright with the order
    (first in one order, second in the other) and how many changed in another way (a preference in one order, a
    tie or both bad in the other)."""
    engine = _engine(engine)
    rows = judge_rows(arena_id, judge, engine)
    ok = [r for r in rows if r.status == "ok"]
    verdict = {r.pair_key: r.verdict or "" for r in ok}  # an ok vote always has its verdict
    flipped = sum(1 for r in ok if {r.first_order, r.second_order} == {"first", "second"})
    changed = sum(1 for r in ok if r.first_order != r.second_order) - flipped
    mine: dict[Any, str] = {}
    theirs: dict[Any, str] = {}
    per_expert: dict[str, tuple[dict, dict]] = {}
    by_pair: dict[str, list[str]] = {}
    for v in arena.votes(arena_id, engine):
        if v.pair_key not in verdict:
            continue
        key = (v.pair_key, v.annotator)
        mine[key], theirs[key] = _three(verdict[v.pair_key]), _three(arena.oriented(v))
        j, e = per_expert.setdefault(v.annotator, ({}, {}))
        j[v.pair_key], e[v.pair_key] = mine[key], theirs[key]
        by_pair.setdefault(v.pair_key, []).append(theirs[key])
    majority: dict[str, str] = {}
    for pk, cats in by_pair.items():
        top = Counter(cats).most_common(2)
        if len(top) == 1 or top[0][1] > top[1][1]:
            majority[pk] = top[0][0]
    return JudgeVsExperts(
        judge, len(verdict), sum(1 for r in rows if r.status == "failed"),
        sum(1 for r in rows if r.status == "unreadable"), flipped, changed, two_rater_agreement(mine, theirs),
        {who: two_rater_agreement(j, e) for who, (j, e) in sorted(per_expert.items())},
        two_rater_agreement({pk: _three(verdict[pk]) for pk in majority}, majority), len(by_pair) - len(majority))
