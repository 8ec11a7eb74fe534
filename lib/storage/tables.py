"""The store's tables, as SQLAlchemy Table objects (what is made, and how, is lib/storage/schema.py's)."""
from __future__ import annotations

from sqlalchemy import (
    Column,
    ColumnElement,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    and_,
    func,
    or_,
)

metadata = MetaData()

documents = Table(
    "documents",
    metadata,
    Column("doc_id", String(64), primary_key=True),
    Column("name", Text, nullable=False),
    Column("sha256", String(64), nullable=False, unique=True),
    Column("status", String(40), nullable=False),  # ready:<generation>
    Column("n_bytes", Integer, nullable=False),
    Column("n_pages", Integer, nullable=False),
    Column("n_chars", Integer, nullable=False),
    Column("n_tokens", Integer, nullable=False, default=0),
    Column("n_chunks", Integer, nullable=False, default=0),
    Column("empty_pages", Text, nullable=False, default="[]"),  # JSON list of page numbers
    # JSON: {"read": [pages read by OCR], "failed": {page: why}, "missing": [scans unread: no Tesseract]}
    Column("ocr", Text, nullable=True),
    Column("chunk_size", Integer, nullable=False),
    Column("chunk_overlap", Integer, nullable=False),
    Column("embed_model", Text, nullable=False),
    Column("seconds", Float, nullable=False, default=0.0),
    Column("created_at", DateTime, server_default=func.now()),
)

pages = Table(
    "pages",
    metadata,
    Column("doc_id", String(64), ForeignKey("documents.doc_id", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("text", Text, nullable=False),
)

chunks = Table(
    "chunks",
    metadata,
    Column("doc_id", String(64), ForeignKey("documents.doc_id", ondelete="CASCADE"), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("text", Text, nullable=False),
    Column("page_start", Integer, nullable=False),
    Column("page_end", Integer, nullable=False),
    Column("char_start", Integer, nullable=False),
    Column("char_end", Integer, nullable=False),
    Column("n_tokens", Integer, nullable=False),
    Column("section", Text),  # outline path, e.g. "ES.3.0 Affected Environment › ES.3.3 FCTC Sites"
    # 1: a table of contents or list of figures (chunking.is_navigation), ranked last; None: indexed before the
    # flag existed (the retriever then reads the text)
    Column("navigation", Integer),
)

ask_history = Table(
    "ask_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("batch_id", String(32), nullable=False, index=True),
    Column("created_at", DateTime, server_default=func.now()),
    Column("doc_id", String(64)),
    Column("question", Text, nullable=False),
    Column("model", Text, nullable=False),
    Column("mode", String(8), nullable=False),
    Column("closed", Integer, nullable=False),
    Column("answer", Text),
    Column("verdict", String(8)),
    Column("verdict_source", String(16)),
    Column("error", Text),
    Column("contexts", Text),  # JSON
    Column("truncated", Integer),
    Column("kept_fraction", Float),
    Column("tokens_in", Integer),
    Column("tokens_out", Integer),
    Column("seconds", Float),
    Column("support", Text),  # JSON: the offline support check made when the answer was kept (step 5)
    Column("asked_by", Text),  # the account that asked (lib/core/access.py); None: asked before accounts
)

bench_runs = Table(
    "bench_runs",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("created_at", DateTime, server_default=func.now()),
    Column("config", Text, nullable=False),  # JSON
    Column("items", Text, nullable=False),  # JSON list of benchmark items
)

bench_answers = Table(
    "bench_answers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(64), ForeignKey("bench_runs.run_id", ondelete="CASCADE"), nullable=False),
    Column("item_id", String(64), nullable=False),
    Column("model", Text, nullable=False),
    Column("mode", String(8), nullable=False),
    Column("status", String(8), nullable=False),  # ok | failed
    Column("answer", Text),
    Column("verdict", String(8)),
    Column("error", Text),
    Column("contexts", Text),
    Column("truncated", Integer),
    Column("kept_fraction", Float),
    Column("tokens_in", Integer),
    Column("tokens_out", Integer),
    Column("seconds", Float),
    Column("verdict_source", String(16)),  # structured | likelihood | heuristic | text
    Column("created_at", DateTime, server_default=func.now()),
    UniqueConstraint("run_id", "item_id", "model", "mode", name="uq_bench_answer"),
)

leases = Table(  # who is writing what (lib/storage/leases.py)
    "leases",
    metadata,
    Column("name", String(200), primary_key=True),
    Column("holder", String(64), nullable=False),
    Column("host", Text, nullable=False),
    Column("pid", Integer, nullable=False),
    Column("purpose", Text),
    Column("heartbeat_at", Float, nullable=False),
    Column("acquired_at", Float, nullable=False),
    Column("host_id", String(64)),  # the kernel and process namespace of ``pid`` (two containers may share a hostname)
)

rate_limits = Table(  # a model's calls paused after a 429, for every worker (lib/storage/model_gates.py)
    "rate_limits",
    metadata,
    Column("key", String(200), primary_key=True),  # endpoint host and model name; never a key
    Column("until", Float, nullable=False),  # no call before this time (epoch seconds)
    Column("reason", Text),
    Column("set_at", Float, nullable=False),
)

jobs = Table(  # long work: ingest, benchmark runs, exam runs, generation (lib/storage/jobs.py)
    "jobs",
    metadata,
    Column("job_id", String(40), primary_key=True),
    Column("kind", String(16), nullable=False),  # ingest | benchmark | exam | generate
    Column("title", Text, nullable=False),  # plain words for the sidebar: "Index big_eis.pdf"
    Column("status", String(12), nullable=False),  # queued | running | done | failed | cancelled | interrupted
    Column("progress", Float, nullable=False, default=0.0),  # 0..1
    Column("message", Text),
    Column("params", Text, nullable=False),  # JSON: what the job needs to run (and to resume)
    Column("result", Text),  # JSON link to what it made: {"doc_id": …} | {"run_id": …} | …
    Column("error", Text),
    Column("cancel_requested", Integer, nullable=False, default=0),
    Column("origin", String(8), nullable=False, default="app"),  # app | cli
    Column("resumed_from", String(40)),
    Column("created_at", Float, nullable=False),
    Column("started_at", Float),
    Column("ended_at", Float),
    Column("dismissed_at", Float),  # hidden from the app's job panel by a user (the CLI still lists it)
    Column("owner", Text),  # the account that started it; it runs as them (None: started before accounts)
    Column("owner_role", String(16)),  # their role when they started it
)

run_manifests = Table(
    "run_manifests",
    metadata,
    Column("run_id", String(128), primary_key=True),
    Column("kind", String(16), nullable=False),  # ask | bench | exam
    Column("manifest", Text, nullable=False),  # JSON, see manifest.py
    Column("created_at", DateTime, server_default=func.now()),
)

bench_scores = Table(
    "bench_scores",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(64), ForeignKey("bench_runs.run_id", ondelete="CASCADE"), nullable=False),
    Column("item_id", String(64), nullable=False),
    Column("model", Text, nullable=False),
    Column("mode", String(8), nullable=False),
    Column("metric", String(32), nullable=False),
    Column("value", Float),
    Column("status", String(16), nullable=False),
    Column("scorer", Text, nullable=False),
    Column("details", Text),  # JSON
    Column("created_at", DateTime, server_default=func.now()),
    UniqueConstraint("run_id", "item_id", "model", "mode", "metric", name="uq_bench_score"),
)

labels = Table(
    "labels",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", String(64), nullable=False),
    Column("annotator", Text, nullable=False),
    Column("label", String(32), nullable=False),
    Column("value", Text, nullable=False),
    Column("updated_at", DateTime, server_default=func.now()),
    UniqueConstraint("item_id", "annotator", "label", name="uq_label"),
)

label_history = Table(
    "label_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", String(64), nullable=False),
    Column("annotator", Text, nullable=False),
    Column("label", String(32), nullable=False),
    Column("value", Text, nullable=False),
    Column("at", DateTime, server_default=func.now()),
)

review_items = Table(
    "review_items",
    metadata,
    Column("item_id", String(64), primary_key=True),
    Column("source", Text, nullable=False),
    Column("question_type", String(32), nullable=False),
    Column("question", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("proof", Text),
    Column("page_number", Integer),
    Column("doc_name", Text),
)

review_batches = Table(
    "review_batches",
    metadata,
    Column("batch_id", String(64), primary_key=True),
    Column("source", Text, nullable=False),
    Column("seed", Integer),
    Column("item_ids", Text, nullable=False),  # JSON list, in review order
    Column("created_at", DateTime, server_default=func.now()),
)

exam_answers = Table(
    "exam_answers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(128), nullable=False, index=True),
    Column("model", Text, nullable=False),
    Column("shots", Integer, nullable=False),
    Column("cot", Integer, nullable=False),
    Column("split", String(8), nullable=False),
    Column("course", Text, nullable=False),
    Column("q_index", Integer, nullable=False),
    Column("predicted", String(4)),
    Column("gold", String(4), nullable=False),
    Column("correct", Integer, nullable=False),
    Column("parsed", Integer, nullable=False),
    Column("raw", Text),
    Column("created_at", DateTime, server_default=func.now()),
    Column("rotation", Integer, default=0),  # circular evaluation: options shifted by this many (0 = as published)
    Column("status", String(8)),  # ok | unparsed | failed (None: written before statuses were stored)
    Column("error", Text),  # a failed call's message, redacted
    Column("seconds", Float),  # time to answer (None: written before times were stored); for estimates
    UniqueConstraint("run_id", "course", "q_index", "rotation", name="uq_exam_answer"),
)

translations = Table(  # machine translations shown beside exam questions (lib/evaluation/exam/translate.py); never scored
    "translations",
    metadata,
    Column("key", String(64), primary_key=True),  # sha256 of model and source text
    Column("model", Text, nullable=False),
    Column("source", Text, nullable=False),
    Column("translation", Text, nullable=False),
    Column("created_at", DateTime, server_default=func.now()),
)

judge_labels = Table(  # a judge model's labels, kept apart from the experts' (lib/review/judge_review.py)
    "judge_labels",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", String(64), nullable=False),
    Column("judge", Text, nullable=False),  # the provider's id
    Column("label", String(32), nullable=False),
    Column("value", Text),  # None when the item failed
    Column("raw", Text),  # the model's reply
    Column("status", String(8), nullable=False),  # ok | failed
    Column("error", Text),
    Column("created_at", DateTime, server_default=func.now()),
    UniqueConstraint("item_id", "judge", "label", name="uq_judge_label"),
)


arenas = Table(  # a blind arena over stored answers (lib/review/arena.py): which answers, which systems
    "arenas",
    metadata,
    Column("arena_id", String(40), primary_key=True),
    Column("name", Text, nullable=False),
    Column("source", Text, nullable=False),  # bench:<run_id> | ask
    Column("answers", Text, nullable=False),  # JSON list of answer ids (bench:<row id> | ask:<row id>)
    Column("systems", Text, nullable=False),  # JSON list of [model, mode]
    Column("min_experts", Integer, nullable=False, default=1),  # each pair seen by at least this many experts
    Column("created_at", DateTime, server_default=func.now()),
    Column("left_out", Text),  # JSON [[model, mode, n]]: failed or empty answers not paired, counted at creation
)

arena_votes = Table(  # experts' blind votes (lib/review/arena.py); one per expert and pair, a second vote replaces it
    "arena_votes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("arena_id", String(40), ForeignKey("arenas.arena_id", ondelete="CASCADE"), nullable=False, index=True),
    Column("item_key", Text, nullable=False),  # the question: bench:<run_id>:<item_id> | ask:<batch_id>
    Column("pair_key", String(120), nullable=False),  # the two answer ids, sorted, joined by "|"
    Column("annotator", Text, nullable=False),
    Column("left_answer", String(60), nullable=False),
    Column("right_answer", String(60), nullable=False),
    Column("left_model", Text, nullable=False),
    Column("left_mode", String(8), nullable=False),
    Column("right_model", Text, nullable=False),
    Column("right_mode", String(8), nullable=False),
    Column("vote", String(8), nullable=False),  # left | right | tie | both_bad
    Column("reason", Text),
    Column("seconds", Float),  # from the pair on screen to the vote
    Column("created_at", DateTime, server_default=func.now()),
    UniqueConstraint("arena_id", "pair_key", "annotator", name="uq_arena_vote"),
)

arena_judge_votes = Table(  # a judge model's votes on the experts' pairs, both orders (lib/review/arena_judge.py)
    "arena_judge_votes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("arena_id", String(40), ForeignKey("arenas.arena_id", ondelete="CASCADE"), nullable=False, index=True),
    Column("pair_key", String(120), nullable=False),
    Column("judge", Text, nullable=False),  # the concrete model id
    Column("first_order", String(8)),  # first | second | tie | both_bad, with the pair's first answer shown as A
    Column("second_order", String(8)),  # the same, with the order swapped (mapped back to first/second)
    Column("verdict", String(8)),  # both orders agree: that; they differ: tie; None when a call failed
    Column("raw", Text),
    Column("status", String(12), nullable=False),  # ok | failed (the call) | unreadable (the reply)
    Column("error", Text),
    Column("created_at", DateTime, server_default=func.now()),
    UniqueConstraint("arena_id", "pair_key", "judge", name="uq_arena_judge_vote"),
)


doc_metadata = Table(  # one row per document and field (lib/documents/metadata/): the value and where it came from
    "doc_metadata",
    metadata,
    Column("doc_id", String(64), ForeignKey("documents.doc_id", ondelete="CASCADE"), primary_key=True),
    Column("key", String(40), primary_key=True),  # a field of metadata.FIELDS
    Column("value", Text),  # JSON
    Column("source", String(16), nullable=False),  # pdf_metadata | cover_text | body_text | model | person
    Column("updated_at", DateTime, server_default=func.now()),
    Column("confidence", Float),  # the rules' weight of the value (lib/documents/metadata/evidence.py); None otherwise
    Column("evidence", Text),  # JSON: where the value was read ({"page", "line", "rule"} or {"property"}), or the model
    Column("extracted", Text),  # JSON, on a person's row: what the rules read now, where it differs from the person
)

eis_volumes = Table(  # the documents that are volumes of one EIS (lib/collection/volumes.py); a document in none stands alone
    "eis_volumes",
    metadata,
    Column("doc_id", String(64), ForeignKey("documents.doc_id", ondelete="CASCADE"), primary_key=True),
    Column("eis_id", String(32), nullable=False, index=True),
    Column("position", Integer, nullable=False),  # 1, 2, 3…: the order the volumes were given in (kept after a deletion)
    Column("grouped_by", String(16), nullable=False),  # upload | folder | manifest | person (a suggestion confirmed)
    Column("created_at", DateTime, server_default=func.now()),
    UniqueConstraint("eis_id", "position", name="uq_eis_volume"),  # one volume 2 per EIS
)


user_roles = Table(  # who has which role (lib/storage/accounts.py): an e-mail or "group:<name>" per row
    "user_roles",
    metadata,
    Column("subject", String(320), primary_key=True),  # lower case
    Column("role", String(16), nullable=False),  # viewer | analyst | expert | adjudicator | admin
    Column("source", String(12), nullable=False),  # setting (NEPAQA_ROLES) | admin (set on the page) | migration
    Column("set_by", Text),
    Column("set_at", Float, nullable=False),
)

audit_log = Table(  # who did what, when, to which object (lib/storage/audit.py); append-only (schema step 12)
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False, index=True),  # epoch seconds
    Column("actor", Text, nullable=False),
    Column("role", String(16)),
    Column("action", String(40), nullable=False),
    Column("object", Text),
    Column("outcome", String(8), nullable=False),  # done | refused
    Column("detail", Text),  # plain words, keys redacted
)

schema_ledger = Table(  # the schema steps this store has taken (lib/storage/schema.py), one row each
    "schema_ledger",
    metadata,
    Column("step", Integer, primary_key=True, autoincrement=False),
    Column("name", String(80), nullable=False),
    Column("applied_at", Float, nullable=False),
    Column("app_version", String(20)),
    Column("note", Text),  # what the step changed in this store that its user should know (e.g. what it dropped)
)


def chunk_keys(table: Table, keys: list[tuple[str, int]]) -> ColumnElement[bool]:
    """Rows of ``table`` (doc_id, idx columns) for these (doc_id, chunk index) pairs: one (doc_id = ? AND idx IN
    (…)) per document, which the primary-key index serves (a row-value IN does not)."""
    by_doc: dict[str, list[int]] = {}
    for d, i in keys:
        by_doc.setdefault(d, []).append(i)
    return or_(*(and_(table.c.doc_id == d, table.c.idx.in_(ids)) for d, ids in by_doc.items()))
