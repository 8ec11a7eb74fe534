"""The blind arena (issue 14): arenas over stored answers, the pair an expert sees next, and their votes. The
statistics are in lib/core/stats (``ratings``: Bradley–Terry; ``agreement``: the experts'); the votes' CSV in
``arena_csv``; the judge model's votes in ``arena_judge``.

An **arena** is made from one benchmark run or from the Ask history. It fixes, when it is made, the answers it
holds (ids into ``bench_answers`` / ``ask_history``: later answers do not change it) and the **systems** it
compares (a concrete model in a context mode). A **pair** is two answers to the same question from two systems
that differ in one thing only: two models in the same mode, or one model in two modes. Failed or empty answers are
not put in pairs; ``arena_summary`` counts them per system, so a reader sees what is missing.

**Sampling** (``next_pair``): among the pairs this expert has not voted on, first (when the arena asks for each
pair to be seen by at least k experts) the pairs other experts have voted on fewer than k times; then the system
pair with the fewest votes; ties go to the system pair whose win probability has the widest 95% Wilson interval;
then the question pair with the fewest votes; then a fixed pseudo-random order. Which answer is on the left is
pseudo-random per expert and pair (a hash), so it is the same on every redraw and balanced over many pairs.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import time as _time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import delete, func, insert, select
from sqlalchemy.engine import Connection, Engine, RowMapping
from sqlalchemy.sql.expression import Executable

from lib.core import access
from lib.core.access import Action
from lib.core.errors import UserError
from lib.core.stats.agreement import PairAgreement, pair_agreement
from lib.core.stats.bradley_terry import VOTES, Vote
from lib.core.stats.inference import wilson_interval
from lib.evaluation.benchmark.runs import StoredRun, list_runs
from lib.models.base import NON_ANSWERS
from lib.qa import context_passage
from lib.qa.context_passage import ContextPassage
from lib.qa.contexts import MODE_LABELS
from lib.review.annotations import check_reviewer_name
from lib.storage import tables
from lib.storage.audit import guarded
from lib.storage.engine import get_engine, upsert

ASK_SOURCE = "ask"
MAX_REASON = 2000


@dataclass
class ArenaAnswer:
    """One stored answer an arena holds (a benchmark answer or an Ask answer), with what its model was given."""

    answer_id: str  # bench:<row id> | ask:<row id>
    item_key: str  # bench:<run_id>:<item_id> | ask:<batch_id>
    question: str
    model: str
    mode: str
    text: str
    passages: list[ContextPassage] = field(default_factory=list)  # what the model was given (RAG: numbered sources)
    gold: str = ""  # the item's gold passage, where the source has one

    @property
    def system(self) -> tuple[str, str]:
        return (self.model, self.mode)


@dataclass
class Pair:
    pair_key: str
    item_key: str
    question: str
    left: ArenaAnswer
    right: ArenaAnswer
    gold: str = ""
    passages: list[ContextPassage] = field(default_factory=list)  # retrieved passages either answer was given, once each


@dataclass(frozen=True)
class Source:
    """Where an arena can come from (a benchmark run, the whole Ask history, or one Ask batch), with the systems
    that have at least one comparable pair there."""

    source: str  # bench:<run_id> | ask | ask:<batch_id>
    kind: str  # bench | ask | ask_batch
    systems: list[tuple[str, str]]
    n_pairs: int
    n_questions: int
    run: StoredRun | None = None  # the benchmark run
    question: str = ""  # one Ask batch's question


@dataclass(frozen=True)
class Arena:
    """An arena as stored: the answers and systems it fixed when it was made."""

    arena_id: str
    name: str
    source: str
    answers: list[str]  # answer ids
    systems: list[tuple[str, str]]  # (model, mode)
    min_experts: int
    created_at: str
    left_out: dict[tuple[str, str], int]  # answers that could not be paired, per system, when it was made


@dataclass(frozen=True)
class ArenaVote:
    """One expert's vote on one pair, left and right as the expert saw them."""

    arena_id: str
    item_key: str
    pair_key: str
    annotator: str
    left_answer: str
    right_answer: str
    left_model: str
    left_mode: str
    right_model: str
    right_mode: str
    vote: str  # left | right | tie | both_bad
    reason: str | None = None
    seconds: float | None = None  # from the pair coming on screen to the vote
    created_at: str | None = None  # set by the store

    def row(self) -> dict[str, object]:
        """The values the store writes (its time is the store's, unless a caller gives one)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "created_at"}


@dataclass(frozen=True)
class Summary:
    """Counts for the page."""

    n_pairs: int
    n_questions: int
    n_votes: int
    experts: list[str]
    pairs_voted: int
    left_out: dict[tuple[str, str], int]  # counted when the arena was made (a resume may delete failures)
    groups: int  # >1: some systems are never compared, even through others
    identical: int  # pairs of identical answers, not asked


_SYSTEM_SEP = " · "


def system_key(model: str, mode: str) -> str:
    """The name a system carries in ratings and CSVs: the concrete model id and the mode id."""
    return f"{model}{_SYSTEM_SEP}{mode}"


def parse_system_key(key: str) -> tuple[str, str]:
    """(model, mode) of a ``system_key``; ("", key) for a name that is not one."""
    model, _, mode = key.rpartition(_SYSTEM_SEP)
    return (model, mode) if model else ("", key)


def system_label(model: str, mode: str, model_label: Callable[[str], str] | None = None) -> str:
    """Plain words for people: the model's label and the mode's."""
    name = model_label(model) if model_label else model
    return f"{name} · {MODE_LABELS.get(mode, mode)}"


def comparable(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Two systems make a pair when they differ in exactly one thing: the model, or the mode."""
    return (a[0] == b[0]) != (a[1] == b[1])


def pair_key(a: str, b: str) -> str:
    return "|".join(sorted((a, b)))


def _engine(engine: Engine | None) -> Engine:
    return engine or get_engine()


# ----- answers from a source ---------------------------------------------------------------------------------------
def usable(text: str | None) -> bool:
    """An answer there is something to compare in: not empty, and not the extractive baseline's "nothing to
    quote" notice (which would also name the system)."""
    t = (text or "").strip()
    return bool(t) and t not in NON_ANSWERS


def _bench_answers(run_id: str, c: Connection, ids: set[int] | None) -> list[ArenaAnswer]:
    runs, ans = tables.bench_runs, tables.bench_answers
    row = c.execute(select(runs.c["items"]).where(runs.c.run_id == run_id)).first()
    if row is None:
        raise UserError(f"Benchmark run '{run_id}' is not in the store.")
    items = {it["id"]: it for it in json.loads(row[0])}
    q = select(ans).where(ans.c.run_id == run_id, ans.c.status == "ok")
    out = []
    for r in c.execute(q.order_by(ans.c.id)).mappings():
        it = items.get(r["item_id"])
        if it is None or (ids is not None and r["id"] not in ids) or not usable(r["answer"]):
            continue
        out.append(ArenaAnswer(f"bench:{r['id']}", f"bench:{run_id}:{r['item_id']}", it.get("question") or "", r["model"],
                          r["mode"], r["answer"], context_passage.from_json(r["contexts"]), it.get("context") or ""))
    return out


def _ask_answers(c: Connection, ids: set[int] | None, batch: str | None = None) -> list[ArenaAnswer]:
    t = tables.ask_history
    q = select(t).where(t.c.error.is_(None))
    if batch:
        q = q.where(t.c.batch_id == batch)
    out = []
    for r in c.execute(q.order_by(t.c.id)).mappings():
        if (ids is not None and r["id"] not in ids) or not usable(r["answer"]):
            continue
        passages = context_passage.from_json(r["contexts"])
        gold = passages[0].text if r["mode"] == "gold" and passages else ""
        out.append(ArenaAnswer(f"ask:{r['id']}", f"ask:{r['batch_id']}", r["question"], r["model"], r["mode"], r["answer"],
                          passages, gold))
    return out


def _load(source: str, engine: Engine, answer_ids: Sequence[str] | None = None) -> list[ArenaAnswer]:
    want = None
    if answer_ids is not None:
        want = {int(a.split(":", 1)[1]) for a in answer_ids}
    with engine.connect() as c:
        if source == ASK_SOURCE:
            return _ask_answers(c, want)
        if source.startswith("ask:"):
            return _ask_answers(c, want, source.split(":", 1)[1])
        if source.startswith("bench:"):
            return _bench_answers(source.split(":", 1)[1], c, want)
    raise UserError(f"Unknown arena source '{source}': use a benchmark run (bench:RUN_ID), one Ask batch "
                    "(ask:BATCH_ID) or the whole Ask history (ask).")


def _failed(source: str, engine: Engine) -> Counter:
    """Answers that cannot be put in a pair (failed calls, empty answers, "nothing to quote"), per system."""
    with engine.connect() as c:
        if source == ASK_SOURCE or source.startswith("ask:"):
            t = tables.ask_history
            q = select(t.c.model, t.c.mode, t.c.answer, t.c.error)
            if source.startswith("ask:"):
                q = q.where(t.c.batch_id == source.split(":", 1)[1])
            rows = [(m, mo, a, "failed" if err is not None else "ok") for m, mo, a, err in c.execute(q)]
        else:
            t = tables.bench_answers
            rows = [(m, mo, a, status) for m, mo, a, status in c.execute(
                select(t.c.model, t.c.mode, t.c.answer, t.c.status).where(t.c.run_id == source.split(":", 1)[1]))]
    return Counter((m, mo) for m, mo, a, status in rows if status != "ok" or not usable(a))


def _same(x: ArenaAnswer, y: ArenaAnswer) -> bool:
    return " ".join(x.text.split()) == " ".join(y.text.split())


def _pairs_of(answers: Sequence[ArenaAnswer], systems: set[tuple[str, str]] | None = None,
              identical: list | None = None) -> list[tuple[ArenaAnswer, ArenaAnswer]]:
    """Every comparable pair of answers to the same question (one answer per system and question: the first).
    Two answers with the same text are not a question for an expert: they go to ``identical`` instead."""
    by_item: dict[str, dict[tuple[str, str], ArenaAnswer]] = defaultdict(dict)
    for a in answers:
        if systems is None or a.system in systems:
            by_item[a.item_key].setdefault(a.system, a)
    out = []
    for item in by_item.values():
        for x, y in itertools.combinations(sorted(item.values(), key=lambda a: a.answer_id), 2):
            if comparable(x.system, y.system):
                if _same(x, y):
                    if identical is not None:
                        identical.append((x, y))
                    continue
                out.append((x, y))
    return out


def sources(engine: Engine | None = None, ask_batches: int = 20) -> list[Source]:
    """Where an arena can come from: each benchmark run, the whole Ask history, and the latest Ask batches (one
    question each), with the systems that have at least one comparable pair and the number of pairs."""
    engine = _engine(engine)
    out = []
    for run in list_runs(engine):
        answers = _load(f"bench:{run.run_id}", engine)
        out.append(_source(f"bench:{run.run_id}", "bench", answers, run=run))
    answers = _load(ASK_SOURCE, engine)
    if answers:
        out.append(_source(ASK_SOURCE, "ask", answers))
        latest = list(dict.fromkeys(a.item_key for a in reversed(answers)))[:ask_batches]
        for key in latest:
            mine = [a for a in answers if a.item_key == key]
            out.append(_source(key, "ask_batch", mine, question=mine[0].question))
    return [s for s in out if s.n_pairs]


def _source(source: str, kind: str, answers: Sequence[ArenaAnswer], run: StoredRun | None = None,
            question: str = "") -> Source:
    pairs = _pairs_of(answers)
    systems = sorted({s for x, y in pairs for s in (x.system, y.system)})
    return Source(source, kind, systems, len(pairs), len({x.item_key for x, _ in pairs}), run, question)


def _groups(systems: Sequence[tuple[str, str]], pairs: Sequence[tuple[ArenaAnswer, ArenaAnswer]]) -> int:
    """How many groups the systems fall into when linked by the pairs (1: every system is compared with every other,
    directly or through others)."""
    from scipy.sparse.csgraph import connected_components  # heavy: imported on first use, off start-up

    if not systems:
        return 0
    where = {s: i for i, s in enumerate(systems)}
    link = np.zeros((len(systems), len(systems)))
    for x, y in pairs:
        link[where[x.system], where[y.system]] = 1
    return int(connected_components(link, directed=False)[0])


# ----- arenas --------------------------------------------------------------------------------------------------------
def create_arena(source: str, systems: Sequence[Sequence[str]] | None = None, name: str | None = None,
                 min_experts: int = 1, engine: Engine | None = None) -> str:
    """Make an arena over the source's answers to date, for the given systems (all that pair up, if None)."""
    access.authorize(Action.RUN_BENCHMARK, "create an arena")
    engine = _engine(engine)
    if not 1 <= int(min_experts) <= 10:
        raise UserError("Experts per pair must be between 1 and 10.")
    chosen = None if systems is None else {(str(m), str(mo)) for m, mo in systems}
    loaded = _load(source, engine)
    pairs = _pairs_of(loaded, chosen)
    if not pairs:
        raise UserError("These answers make no pair to compare: an arena needs two models answering the same "
                        "questions in one context mode, or one model in two modes, with answers that did not fail.")
    used = sorted({s for x, y in pairs for s in (x.system, y.system)})
    if _groups(used, pairs) > 1:
        raise UserError("These systems fall into groups that are never compared, even through other systems (a pair "
                        "is two models with the same context, or one model with two kinds of context), so their "
                        "ratings could not be put on one scale. Add systems that link them (e.g. the same model "
                        "with both kinds of context), or start one arena per group.")
    answer_ids = sorted({a.answer_id for x, y in pairs for a in (x, y)}, key=lambda a: (a.split(":")[0], int(a.split(":")[1])))
    arena_id = uuid.uuid4().hex[:12]
    with engine.begin() as c:
        c.execute(insert(tables.arenas).values(
            arena_id=arena_id, name=(name or "").strip()[:200] or _default_name(source, loaded, len(used)), source=source,
            answers=json.dumps(answer_ids), systems=json.dumps([list(s) for s in used]), min_experts=int(min_experts),
            left_out=json.dumps([[m, mo, n] for (m, mo), n in sorted(_failed(source, engine).items())
                                 if (m, mo) in set(used)])))
    return arena_id


def _default_name(source: str, answers: Sequence[ArenaAnswer], n_systems: int) -> str:
    """A name a reviewer can tell apart: where the answers come from, and how many systems."""
    if source.startswith("bench:"):
        run_id = source.split(":", 1)[1]
        try:
            when = _time.strftime("%d %b %H:%M", _time.strptime(run_id[:15], "%Y%m%d-%H%M%S"))
            what = f"Benchmark of {when}"
        except ValueError:
            what = f"Benchmark {run_id[:24]}"
    elif source.startswith("ask:"):
        q = answers[0].question if answers else ""
        what = "Ask: " + (q if len(q) <= 50 else q[:50].rsplit(" ", 1)[0] + " …")
    else:
        what = "Ask history"
    return f"{what} · {n_systems} systems"


def arenas(engine: Engine | None = None) -> list[Arena]:
    t = tables.arenas
    with _engine(engine).connect() as c:
        rows = c.execute(select(t).order_by(t.c.created_at.desc(), t.c.arena_id)).mappings().all()
    return [_arena(r) for r in rows]


def _arena(r: RowMapping) -> Arena:
    return Arena(r["arena_id"], r["name"], r["source"], json.loads(r["answers"]),
                 [(m, mo) for m, mo in json.loads(r["systems"])], int(r["min_experts"] or 1), str(r["created_at"]),
                 {(m, mo): int(n) for m, mo, n in json.loads(r.get("left_out") or "[]")})


def get_arena(arena_id: str, engine: Engine | None = None) -> Arena:
    t = tables.arenas
    with _engine(engine).connect() as c:
        r = c.execute(select(t).where(t.c.arena_id == arena_id)).mappings().first()
    if r is None:
        raise UserError(f"Arena '{arena_id}' is not in the store.")
    return _arena(r)


def arena_answers(arena: Arena, engine: Engine | None = None) -> dict[str, ArenaAnswer]:
    return {a.answer_id: a for a in _load(arena.source, _engine(engine), arena.answers)}


def arena_pairs(arena: Arena, engine: Engine | None = None) -> list[tuple[ArenaAnswer, ArenaAnswer]]:
    return _pairs_of(list(arena_answers(arena, engine).values()), set(arena.systems))


def delete_arena(arena_id: str, engine: Engine | None = None) -> None:
    with guarded(Action.DELETE, f"arena {arena_id}", engine=_engine(engine)), _engine(engine).begin() as c:
        c.execute(delete(tables.arena_judge_votes).where(tables.arena_judge_votes.c.arena_id == arena_id))
        c.execute(delete(tables.arena_votes).where(tables.arena_votes.c.arena_id == arena_id))
        c.execute(delete(tables.arenas).where(tables.arenas.c.arena_id == arena_id))


# ----- votes ---------------------------------------------------------------------------------------------------------
def votes(arena_id: str, engine: Engine | None = None) -> list[ArenaVote]:
    t = tables.arena_votes
    with _engine(engine).connect() as c:
        rows = c.execute(select(t).where(t.c.arena_id == arena_id).order_by(t.c.id)).mappings().all()
    return [_vote(r) for r in rows]


_VOTE_FIELDS = tuple(f.name for f in dataclasses.fields(ArenaVote))


def _vote(r: RowMapping) -> ArenaVote:
    return ArenaVote(**{k: r[k] for k in _VOTE_FIELDS if k != "created_at"}, created_at=str(r["created_at"]))


def oriented(v: ArenaVote) -> str:
    """A vote relative to its pair's order (the pair key's first answer): first | second | tie | both_bad, the same
    whichever side each expert saw it on."""
    if v.vote in ("tie", "both_bad"):
        return v.vote
    winner = v.left_answer if v.vote == "left" else v.right_answer
    return "first" if winner == v.pair_key.split("|")[0] else "second"


def _wilson_width(score: float, n: int) -> float:
    if n == 0:
        return 1.0
    lo, hi = wilson_interval(score, n)
    return hi - lo


def _hash(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def pair_passages(x: ArenaAnswer, y: ArenaAnswer) -> list[ContextPassage]:
    seen: set[tuple[str, int | None, str]] = set()
    out = []
    for a in (x, y):
        if a.mode != "rag":  # gold: the reference passage is shown apart; full PDF: a summary, not a passage
            continue
        for p in a.passages:
            key = (p.doc_name, p.page_start, p.text[:200])
            if key not in seen:
                seen.add(key)
                out.append(p)
    return out


@dataclass
class Snapshot:
    """One read of an arena: its record, answers, pairs and votes (a page draws a pair, the progress and a vote
    from one read)."""
    arena: Arena
    answers: dict[str, ArenaAnswer]
    pairs: list[tuple[ArenaAnswer, ArenaAnswer]]
    votes: list[ArenaVote]


def snapshot(arena_id: str, engine: Engine | None = None) -> Snapshot:
    engine = _engine(engine)
    info = get_arena(arena_id, engine)
    answers = arena_answers(info, engine)
    return Snapshot(info, answers, _pairs_of(list(answers.values()), set(info.systems)), votes(arena_id, engine))


def next_pair(arena_id: str, annotator: str, engine: Engine | None = None, snap: Snapshot | None = None,
              prefer: str | None = None) -> Pair | None:
    """The pair this expert should vote on next (see the module's note on sampling), or None when they have voted
    on every pair. ``prefer``: a pair key to give first if the expert has not voted on it (an undone vote)."""
    snap = snap or snapshot(arena_id, engine)
    cast = snap.votes
    mine = {v.pair_key for v in cast if v.annotator == annotator}
    experts_on: Counter = Counter(v.pair_key for v in cast)
    per_system: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0])  # score of the first system, n
    for v in cast:
        a, b = (v.left_model, v.left_mode), (v.right_model, v.right_mode)
        key = tuple(sorted((a, b)))
        first_won = {"left": a == key[0], "right": b == key[0]}.get(v.vote)
        per_system[key][0] += 0.5 if first_won is None else float(first_won)
        per_system[key][1] += 1
    width = {key: _wilson_width(score, int(n)) for key, (score, n) in per_system.items()}  # once per system pair
    k = snap.arena.min_experts
    best, best_rank = None, None
    for x, y in snap.pairs:
        pk = pair_key(x.answer_id, y.answer_id)
        if pk in mine:
            continue
        skey = tuple(sorted((x.system, y.system)))
        needs_more = 0 if k > 1 and 0 < experts_on[pk] < k else 1
        rank = (pk != prefer, needs_more, per_system[skey][1], -width.get(skey, 1.0), experts_on[pk], _hash(annotator, pk))
        if best_rank is None or rank < best_rank:
            best, best_rank = (x, y), rank
    if best is None:
        return None
    x, y = best
    pk = pair_key(x.answer_id, y.answer_id)
    left, right = (x, y) if _hash("side", annotator, pk) % 2 == 0 else (y, x)
    return Pair(pk, x.item_key, x.question, left, right, x.gold or y.gold, pair_passages(x, y))


def progress(arena_id: str, annotator: str, engine: Engine | None = None,
             snap: Snapshot | None = None) -> tuple[int, int]:
    """(pairs this expert has voted on, pairs in the arena)."""
    snap = snap or snapshot(arena_id, engine)
    return sum(1 for v in snap.votes if v.annotator == annotator), len(snap.pairs)


def upsert_vote(engine: Engine, vote: ArenaVote, created_at: object = None) -> Executable:
    """The statement that stores ``vote``, replacing the expert's earlier vote on the pair. ``created_at``: when it
    was cast (a date, or ``func.now()``); without one a replaced vote keeps its first time."""
    row = vote.row() | ({} if created_at is None else {"created_at": created_at})
    keys = ("arena_id", "pair_key", "annotator")
    return upsert(engine, tables.arena_votes, row, keys, [k for k in row if k not in keys])


def vote_row(arena_id: str, answers: dict[str, ArenaAnswer], annotator: str, left_id: str, right_id: str, vote: str,
             reason: str | None, seconds: float | None) -> ArenaVote:
    """A checked vote; raises UserError with a plain reason."""
    annotator = check_reviewer_name(annotator)
    if vote not in VOTES:
        raise UserError(f"A vote is one of {', '.join(VOTES)}, not '{vote}'.")
    missing = [a for a in (left_id, right_id) if a not in answers]
    if missing:
        raise UserError(f"Answer {missing[0]} is not in this arena.")
    left, right = answers[left_id], answers[right_id]
    if left.item_key != right.item_key or not comparable(left.system, right.system):
        raise UserError(f"Answers {left_id} and {right_id} are not a pair of this arena.")
    return ArenaVote(arena_id, left.item_key, pair_key(left_id, right_id), annotator, left_id, right_id, left.model,
                     left.mode, right.model, right.mode, vote, (reason or "").strip()[:MAX_REASON] or None,
                     None if seconds is None else round(float(seconds), 2))


def cast_vote(arena_id: str, annotator: str, pair: Pair, vote: str, reason: str | None = None,
              seconds: float | None = None, engine: Engine | None = None, snap: Snapshot | None = None) -> None:
    """Store one expert's vote on a pair as they saw it (left/right as shown). A second vote on the same pair by
    the same expert replaces the first."""
    engine = _engine(engine)
    access.authorize(Action.VOTE, arena_id)
    access.own_name(annotator)
    answers = snap.answers if snap is not None else arena_answers(get_arena(arena_id, engine), engine)
    cast = vote_row(arena_id, answers, annotator, pair.left.answer_id, pair.right.answer_id, vote, reason, seconds)
    with guarded(Action.VOTE, f"arena {arena_id}", f"{annotator}: {vote}", engine), engine.begin() as c:
        c.execute(upsert_vote(engine, cast, func.now()))  # a second vote is dated when it was cast


def take_back(arena_id: str, annotator: str, pair_key: str, engine: Engine | None = None) -> ArenaVote | None:
    """Delete this expert's vote on one pair (the page's undo: the pair it last saw this expert vote on). Returns the
    vote taken back, or None when there was none."""
    t = tables.arena_votes
    engine = _engine(engine)
    where = (t.c.arena_id == arena_id) & (t.c.annotator == annotator) & (t.c.pair_key == pair_key)
    access.own_name(annotator)
    access.authorize(Action.VOTE, f"arena {arena_id}")
    with engine.connect() as c:
        if c.execute(select(t.c.pair_key).where(where)).first() is None:
            return None
    with guarded(Action.VOTE, f"arena {arena_id}", f"{annotator}: vote taken back", engine), engine.begin() as c:
        row = c.execute(select(t).where(where)).mappings().first()
        if row is None:
            return None
        c.execute(delete(t).where(where))
    return _vote(row)


def voters(engine: Engine | None = None) -> list[str]:
    """Everyone who has voted in any arena."""
    t = tables.arena_votes
    with _engine(engine).connect() as c:
        return [r[0] for r in c.execute(select(t.c.annotator).distinct().order_by(t.c.annotator))]


def rating_votes(rows: Sequence[ArenaVote]) -> list[Vote]:
    """Stored votes as the ratings read them: systems named by ``system_key``."""
    return [Vote(system_key(r.left_model, r.left_mode), system_key(r.right_model, r.right_mode), r.vote, r.annotator,
                 r.item_key) for r in rows]


# ----- summaries -----------------------------------------------------------------------------------------------------
def arena_summary(arena: Arena, engine: Engine | None = None) -> Summary:
    """Counts for the page: pairs, questions, votes, experts, and answers left out per system (failed or empty)."""
    engine = _engine(engine)
    same: list = []
    pairs = _pairs_of(list(arena_answers(arena, engine).values()), set(arena.systems), same)
    cast = votes(arena.arena_id, engine)
    return Summary(len(pairs), len({x.item_key for x, _ in pairs}), len(cast), sorted({v.annotator for v in cast}),
                   len({v.pair_key for v in cast}), arena.left_out, _groups(list(arena.systems), pairs), len(same))


def expert_agreement(rows: Sequence[ArenaVote]) -> PairAgreement:
    """Experts' agreement on the pairs several of them voted on, on the vote relative to the pair (first / second /
    tie / both bad): see ``lib.core.stats.agreement.pair_agreement``."""
    return pair_agreement({(r.pair_key, r.annotator): oriented(r) for r in rows})
