"""Roles × actions, walked through lib directly (issue 45). The table below is written from the issue's words, not
read from lib/core/access.py's POLICY: each of lib's functions that changes data or spends a key, and the least
role that may call it. Every role calls every function: roles below are refused (AccessDeniedError, nothing
written), roles at or above get past the check. A second test finds lib's data-changing functions by reading the
source (SQL writes, index and file changes), so a new one that is neither in the table nor named below as internal
bookkeeping fails until it is guarded and listed."""
from __future__ import annotations

import ast
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from lib.core import access, config
from lib.core.access import AccessDeniedError, Actor, Role
from lib.evaluation.benchmark.dataset import Item
from lib.storage import accounts, audit, get_engine, jobs, tables

ROOT = Path(__file__).resolve().parent.parent
ROLES = [None, *Role]  # None: a signed-in account with no role
VIEWER, ANALYST, EXPERT, ADJUDICATOR, ADMIN = Role.VIEWER, Role.ANALYST, Role.EXPERT, Role.ADJUDICATOR, Role.ADMIN


def _item() -> Item:
    return Item(id="W1", doc="d", question_type="closed", question="Is it?", answer="Yes", context="ctx")


def _connected_generate() -> None:
    """A connected model's generate, unconfigured: its check is what is walked (past it, the call fails)."""
    from lib.models.base import Provider, Request
    from lib.models.remote import OpenAIModel
    assert issubclass(OpenAIModel, Provider) and not OpenAIModel.local
    OpenAIModel.__new__(OpenAIModel).generate(Request(prompt="hi"))


def _svc():
    from lib.app.services import get_services
    return get_services()


def _walk_actions(tmp: Path) -> dict[str, tuple[Role, Callable[[], object]]]:
    """Each data-changing function of lib, the least role the issue gives it, and a call of it. The calls use
    made-up ids: past the check, most fail for that (an unknown document), which is not a refusal."""
    from lib.app import job_handlers
    from lib.collection import maintenance, volumes
    from lib.documents.metadata import fill, records
    from lib.evaluation.benchmark import runner, runs
    from lib.evaluation.exam import runner as exam_runner
    from lib.evaluation.exam import translate
    from lib.qa import ask
    from lib.review import annotations as ann
    from lib.review import arena, arena_csv, arena_judge, judge_review, support_calibration
    pdf = tmp / "none.pdf"
    return {
        # viewer: read, search, ask with local models
        "qa.ask.ask_grid (a local model)": (VIEWER, lambda: ask.ask_grid("Is it?", ["nobody/none"], ["none"])),
        "qa.ask.save_history": (VIEWER, lambda: ask.save_history([], None)),
        "evaluation.exam.translate.translate": (VIEWER, lambda: translate.translate("nobody/none", "text")),
        # analyst: connected models, uploads, benchmarks (and the metadata of documents)
        "models.base.Provider.generate (a connected model)": (ANALYST, _connected_generate),
        "collection.DocumentStore.ingest_file": (ANALYST, lambda: _svc().docs.ingest_file(str(pdf))),
        "collection.ingest.IngestPipeline.ingest_file": (ANALYST, lambda: _svc().docs.pipeline.ingest_file(str(pdf))),
        "collection.DocumentStore.reindex": (ANALYST, lambda: _svc().docs.reindex("nodoc", 200, 40)),
        "collection.ingest.IngestPipeline.reindex": (ANALYST, lambda: _svc().docs.pipeline.reindex("nodoc", 200, 40)),
        "collection.DocumentStore.reextract_metadata": (ANALYST, lambda: _svc().docs.reextract_metadata("nodoc")),
        "collection.volumes.group": (ANALYST, lambda: volumes.group(["nodoc", "nodoc2"])),
        "collection.volumes.place": (ANALYST, lambda: volumes.place("nodoc", "noeis", 1, "upload")),
        "collection.volumes.remove": (ANALYST, lambda: volumes.remove("nodoc")),
        "documents.metadata.records.set_values": (ANALYST, lambda: records.set_values("nodoc", {"tags": "x"})),
        "documents.metadata.fill.fill_with_model": (ANALYST, lambda: fill.fill_with_model("nodoc", None, "")),
        "evaluation.benchmark.runs.create_run": (ANALYST, lambda: runs.create_run([], runs.RunConfig(["extractive"],
                                                                                              ["none"]))),
        "evaluation.benchmark.runs.save_config": (ANALYST, lambda: runs.save_config(
            "norun", runs.RunConfig(["extractive"], ["none"]), get_engine())),
        "evaluation.benchmark.runner.run_benchmark": (ANALYST, lambda: runner.run_benchmark(None, None, run_id="no")),
        "evaluation.benchmark.runner.rescore": (ANALYST, lambda: runner.rescore("norun")),
        "evaluation.exam.runner.run_exam": (ANALYST, lambda: exam_runner.run_exam("nobody/none", limit=0)),
        "review.annotations.add_items": (ANALYST, lambda: ann.add_items([_item()], "walk")),
        "review.arena.create_arena": (ANALYST, lambda: arena.create_arena("nosource")),
        "review.arena_judge.judge_pairs": (ANALYST, lambda: arena_judge.judge_pairs("noarena", "nobody/none")),
        "review.judge_review.judge_items": (ANALYST, lambda: judge_review.judge_items("nobody/none")),
        "review.support_calibration.judge_items": (ANALYST, lambda: support_calibration.judge_items("nobody/none")),
        "app.job_handlers.stage_upload": (ANALYST, lambda: job_handlers.stage_upload(b"%PDF-1.4")),
        "storage.jobs.submit (ingest)": (ANALYST, lambda: jobs.submit("ingest", {"path": str(pdf)}, "walk")),
        "storage.jobs.submit (benchmark)": (ANALYST, lambda: jobs.submit("benchmark", {"run_id": "walk"}, "walk")),
        "storage.jobs.submit (exam)": (ANALYST, lambda: jobs.submit("exam", {"model": "nobody/none"}, "walk")),
        "storage.jobs.submit (generate)": (ANALYST, lambda: jobs.submit("generate", {"model": "nobody/none"}, "walk")),
        # expert: labels and votes
        "review.annotations.create_batch": (EXPERT, lambda: ann.create_batch("walk", 1)),
        "review.annotations.save_label": (EXPERT, lambda: ann.save_label("W1", "walker@epa.gov", "answer_correct",
                                                                         "yes")),
        "review.annotations.save_review": (EXPERT, lambda: ann.save_review("W1", "walker@epa.gov", {
            "type_correct": "yes", "answer_correct": "yes", "proof_supports": "yes"})),
        "review.annotations.import_labels": (EXPERT, lambda: ann.import_labels([])),
        "review.annotations.import_labels_csv": (EXPERT, lambda: ann.import_labels_csv(
            "item_id,annotator,label,value\nW1,walker@epa.gov,answer_correct,no\n")),
        "review.arena.cast_vote": (EXPERT, lambda: arena.cast_vote("noarena", "walker@epa.gov", None, "left")),
        "review.arena.take_back": (EXPERT, lambda: arena.take_back("noarena", "walker@epa.gov", "nopair")),
        "review.arena_csv.import_votes_csv": (EXPERT, lambda: arena_csv.import_votes_csv("", "noarena")),
        # adjudicator: final labels
        "review.annotations.adjudicate": (ADJUDICATOR, lambda: ann.adjudicate("W1", "answer_correct", "no")),
        # admin: deletions, settings, roles, other people's jobs, the audit record
        "collection.DocumentStore.delete": (ADMIN, lambda: _svc().docs.delete("nodoc")),
        "collection.DocumentStore.repair": (ADMIN, lambda: _svc().docs.repair()),
        "review.arena.delete_arena": (ADMIN, lambda: arena.delete_arena("noarena")),
        "collection.maintenance.repair": (ADMIN, lambda: maintenance.repair(_svc().docs)),
        "collection.maintenance.reembed": (ADMIN, lambda: maintenance.reembed(_svc().docs, "nodoc")),
        "collection.maintenance.check (fix)": (ADMIN, lambda: maintenance.check(_svc().docs, fix=True)),
        "storage.jobs.submit (re-embedding)": (ADMIN, lambda: jobs.submit("reembed", {}, "walk")),
        "storage.accounts.set_role": (ADMIN, lambda: accounts.set_role("someone@epa.gov", "viewer")),
        "storage.accounts.remove": (ADMIN, lambda: accounts.remove("nobody-here@epa.gov")),
        "storage.audit.entries": (ADMIN, lambda: audit.entries()),
        "storage.audit.export_csv": (ADMIN, lambda: audit.export_csv()),
        "storage.jobs.cancel (another's job)": (ADMIN, lambda: jobs.cancel(_others_job())),
        "storage.jobs.dismiss (another's job)": (ADMIN, lambda: jobs.dismiss(_others_job())),
        "storage.jobs.resume (another's job)": (ADMIN, lambda: jobs.resume(_others_job())),
    }


def _others_job() -> str:
    """A failed job of someone else's, made directly in the table (no handler runs)."""
    job_id = f"walk-{time.monotonic_ns()}"
    with get_engine().begin() as c:
        c.execute(tables.jobs.insert().values(job_id=job_id, kind="exam", title="theirs", status="failed", progress=0,
                                              params="{}", result="{}", cancel_requested=0, origin="app",
                                              created_at=time.time(), owner="other@epa.gov", owner_role="analyst"))
    return job_id


def _stored() -> dict[str, int]:
    """How many rows each table holds (the audit record aside), the vectors, and the files kept under the home."""
    # leases come and go with the jobs the permitted calls started; "theirs" is the job each call is given
    with get_engine().connect() as c:
        counts = {t.name: c.execute(select(func.count()).select_from(t)).scalar_one()
                  for t in tables.metadata.sorted_tables if t.name not in ("audit_log", "leases", "jobs")}
        counts["jobs"] = c.execute(select(func.count()).select_from(tables.jobs)
                                   .where(tables.jobs.c.title != "theirs")).scalar_one()
        counts["jobs changed"] = c.execute(select(func.count()).select_from(tables.jobs).where(
            tables.jobs.c.title == "theirs", tables.jobs.c.status != "failed")).scalar_one()
    counts["vectors"] = _svc().docs.index.collection.count()
    counts["files"] = sum(1 for _ in config.paths().home.rglob("*") if "chroma" not in _.parts)
    return counts


def _as(role: Role | None) -> Actor:
    return Actor("walker@epa.gov", role, signed_in=True)


def test_each_role_is_allowed_what_it_should_and_refused_the_rest(tmp_path, monkeypatch):
    monkeypatch.setenv("NEPAQA_HOME", str(tmp_path / "home"))
    import lib.app  # noqa: F401 - registers the job kinds and what each needs
    access.require_sign_in()
    actions = _walk_actions(tmp_path)
    wrong: list[str] = []
    for name, (least, call) in actions.items():
        for role in ROLES:
            before = _stored()
            with access.acting_as(_as(role)):
                try:
                    call()
                    refused = False
                except AccessDeniedError:
                    refused = True
                except Exception:  # noqa: BLE001 - past the check, a made-up id fails; that is not a refusal
                    refused = False
            should = role is None or role < least
            if refused != should:
                wrong.append(f"{name}: {role.word if role else 'no role'} was "
                             f"{'refused' if refused else 'let through'}")
            elif refused and (after := _stored()) != before:  # a refusal writes nothing but its audit line
                wrong.append(f"{name}: refused for {role.word if role else 'no role'}, yet it changed "
                             f"{sorted(k for k in after if after[k] != before.get(k))}")
    assert not wrong, "\n".join(wrong)
    with access.acting_as(None):  # nobody signed in, with sign-in on: every action refused
        for name, (_, call) in actions.items():
            with pytest.raises(AccessDeniedError):
                call()
    with get_engine().connect() as c:  # each refusal is in the record, for the admins
        refusals = c.execute(select(tables.audit_log.c.actor).where(tables.audit_log.c.outcome == "refused")).all()
    assert len(refusals) >= len(actions) * 2  # at least: no role, and nobody, for each action


# ---- finding lib's data-changing functions, independently of the table above ----------------------------------------

# A write: SQL that inserts, updates or deletes, a transaction, the vector index's or a file's removal or writing.
_WRITES = re.compile(r"\.begin\(\)|\binsert\((tables\.|t\b|v\b)|\bupdate\((tables\.|t\b)|\b(_sa_)?delete\((tables\.|t\b|"
                     r"v\b)|\bupsert\(|\.delete_doc\(|\.unlink\(|rmtree\(|\.write_bytes\(|\.write_text\(|\b_write\(|"
                     r"\bcollection\.(add|upsert|delete|update)\(|text\(\s*f?[\"'](INSERT|UPDATE|DELETE)")

# Writers that are no person's action: each runs inside a checked one, or is the store's own bookkeeping.
INTERNAL = {
    "app.job_handlers.discard_staged": "drops an upload's kept copy when its job is done with it",
    "collection.bm25.save": "the lexical index's files, written by a checked ingest",
    "collection.bm25.read": "the same files, rebuilt when missing",
    "collection.bm25.Index.put": "the same files",
    "collection.lexical.delete": "the full-text index's rows, inside a checked deletion's transaction",
    "collection.lexical.write": "the same, inside a checked ingest's transaction",
    "collection.vectors.VectorIndex.add": "the vector index's own writes, called by a checked ingest",
    "collection.vectors.VectorIndex.delete_doc": "called by the checked DocumentStore.delete",
    "collection.vectors.VectorIndex.drop_generation": "an ingest's or re-embedding's undo of its own vectors",
    "collection.vectors.VectorIndex.drop_other_generations": "an ingest's last step, after its commit",
    "collection.repository.DocumentRepository.commit": "an ingest's last step (IngestPipeline.ingest_file checks)",
    "collection.repository.DocumentRepository.set_generation": "the same",
    "collection.repository.DocumentRepository.delete": "DocumentStore.delete's rows (it checks)",
    "documents.metadata.records.save_extracted": "what an ingest read from the covers (checked ingest)",
    "documents.metadata.records.delete": "DocumentStore.delete's metadata rows",
    "documents.originals.save": "an ingest's kept PDF",
    "documents.originals.private_copy": "a private copy for reading",
    "documents.originals.delete": "DocumentStore.delete's PDF",
    "models.embedding_onnx.export": "the embedder's model cache",
    "qa.manifest.save": "the manifest of a checked run",
    "review.arena.upsert_vote": "builds the statement cast_vote and import_votes_csv run",
    "storage.accounts.seed": "the deployer's NEPAQA_ROLES setting, not a person's action",
    "storage.audit.record": "the audit record itself",
    "storage.engine.upsert": "builds a statement",
    "storage.jobs.run_queued": "a worker running a job as its starter",
    "storage.jobs.claim_resume": "resume's first step (resume and requeue check the job's owner)",
    "storage.jobs.requeue_interrupted": "a dead worker's job queued again, as its starter",
    "storage.jobs.JobContext.report": "a job's progress",
    "storage.jobs.JobContext.slim_params": "a job's own parameters",
    "storage.jobs.JobContext.link": "a job's result link",
    "storage.leases.Lease.try_acquire": "writers' leases",
    "storage.leases.Lease.release": "writers' leases",
    "storage.model_gates.pause": "a model's rate-limit pause, shared by workers",
}


def _writers() -> set[str]:
    found = set()
    for path in sorted((ROOT / "lib").rglob("*.py")):
        src = path.read_text()
        mod = ".".join(path.relative_to(ROOT / "lib").with_suffix("").parts)
        if mod.startswith(("storage.schema", "app.cli")):  # the store's upgrades; the CLI calls the checked functions
            continue
        tree = ast.parse(src)
        scopes = [(None, n) for n in tree.body] + [(c.name, n) for c in tree.body if isinstance(c, ast.ClassDef)
                                                    for n in c.body]
        for cls, node in scopes:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and \
                    _WRITES.search(ast.get_source_segment(src, node) or ""):
                found.add(f"{mod}.{cls + '.' if cls else ''}{node.name}")
    return found


def _named(entry: str) -> str:
    return entry.split(" (")[0].replace("collection.DocumentStore", "collection.document_store.DocumentStore")


def test_every_data_changing_function_is_walked_or_named_internal(tmp_path):
    walked, writers = {_named(n) for n in _walk_actions(tmp_path)}, _writers()
    unlisted = sorted(w for w in writers if w not in walked and w not in INTERNAL)
    assert not unlisted, ("lib functions that change data but are neither checked in the walk above nor named "
                          "internal (guard them with lib/core/access.py and add them to the walk):\n"
                          + "\n".join(unlisted))
    stale = sorted(n for n in INTERNAL if n not in writers)
    assert not stale, f"named internal but no longer writing (or renamed): {stale}"


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_the_audit_record_is_append_only(tmp_path, store, request):
    url = f"sqlite:///{tmp_path / 'a.db'}" if store == "sqlite" else request.getfixturevalue("pg_url")
    engine = get_engine(url)
    audit.record(access.Action.DELETE, "document x", engine=engine)
    changes = ["UPDATE audit_log SET actor = 'someone else'", "DELETE FROM audit_log"]
    for sql in changes + (["TRUNCATE audit_log"] if store == "postgresql" else []):
        with pytest.raises(Exception, match="append-only"), engine.begin() as c:
            c.execute(text(sql))
    with engine.connect() as c:
        assert c.execute(select(tables.audit_log.c.actor)).scalars().all() == ["local user"]


def test_the_audit_export_of_a_session_that_uploads_labels_adjudicates_and_deletes(tmp_path, monkeypatch):
    """Who did what, in order, from the admin's export; a key typed into a value is not in it. (A store of its own:
    its labels would count in other tests' agreement figures.)"""
    from lib.review import annotations as ann
    from tests.conftest import make_text_pdf
    monkeypatch.setenv("NEPAQA_HOME", str(tmp_path / "home"))
    services = _svc()
    key = "sk-" + "Q7wErTy" * 4
    monkeypatch.setenv("OPENAI_API_KEY", key)
    access.require_sign_in()
    ana, ada, cleo, root = (Actor(e, r, signed_in=True) for e, r in (
        ("ana@epa.gov", ANALYST), ("ada@epa.gov", EXPERT), ("cleo@epa.gov", ADJUDICATOR), ("root@epa.gov", ADMIN)))
    pdf = make_text_pdf(tmp_path / "levee.pdf", ["Groundwater wells along the levee would track seepage. " * 20])
    with access.acting_as(ana):
        doc = services.docs.ingest_file(str(pdf), "Levee EIS", file_name="levee.pdf").doc_id
        from lib.documents.metadata import records
        records.set_values(doc, {"tags": f"levee, {key}"})
        ann.add_items([_item()], "walk")
    with access.acting_as(ada):
        ann.save_label("W1", "ada@epa.gov", "answer_correct", "no")
    with access.acting_as(cleo):
        ann.adjudicate("W1", "answer_correct", "yes")
    with access.acting_as(ada), pytest.raises(AccessDeniedError):
        services.docs.delete(doc)  # refused, and recorded
    with access.acting_as(root):
        services.docs.delete(doc)
        exported = audit.export_csv()
    assert key not in exported and "***" in exported
    import csv
    import io
    rows = [(r["actor"], r["action"], r["outcome"]) for r in csv.DictReader(io.StringIO(exported))]
    mine = [r for r in rows if r[0] in ("ana@epa.gov", "ada@epa.gov", "cleo@epa.gov", "root@epa.gov")]
    assert mine == [("ana@epa.gov", "upload documents", "done"), ("ana@epa.gov", "edit metadata", "done"),
                    ("ana@epa.gov", "run benchmarks and exams", "done"),
                    ("ada@epa.gov", "label items", "done"), ("cleo@epa.gov", "set final labels", "done"),
                    ("ada@epa.gov", "delete", "refused"), ("root@epa.gov", "delete", "done")]
    (tmp_path / "audit.csv").write_text(exported)


def test_downloads_are_recorded_as_exports_by_the_person_acting(tmp_path, monkeypatch):
    from lib.app import accounts as app_accounts
    monkeypatch.setenv("NEPAQA_HOME", str(tmp_path / "home"))
    access.require_sign_in()
    with access.acting_as(Actor("vic@epa.gov", VIEWER, signed_in=True)):
        make = app_accounts.download("labels (CSV)", lambda: "item_id\n")
    # clicked later, on another thread (Streamlit's), where nobody is set: it still acts as the viewer
    import threading
    got: list[object] = []
    threading.Thread(target=lambda: got.append(make())).start()
    deadline = time.monotonic() + 30
    while not got and time.monotonic() < deadline:
        time.sleep(0.05)
    assert got == ["item_id\n"]
    with get_engine().connect() as c:
        rows = c.execute(select(tables.audit_log.c.actor, tables.audit_log.c.action, tables.audit_log.c.object)).all()
    assert ("vic@epa.gov", "export", "labels (CSV)") in [tuple(r) for r in rows]


def test_the_command_line_runs_as_the_local_admin_and_says_so(tmp_path, pdf_factory):
    import json
    import os
    import subprocess
    import sys
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "home")}
    helped = subprocess.run([sys.executable, "-m", "lib", "--help"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert "runs as the local admin" in " ".join(helped.stdout.split())
    pdf = pdf_factory("cli.pdf", ["Noise from the interceptor site would be temporary. " * 30])
    done = subprocess.run([sys.executable, "-m", "lib", "ingest", str(pdf)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)["doc_id"]
    gone = subprocess.run([sys.executable, "-m", "lib", "delete", doc], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert gone.returncode == 0, gone.stderr
    engine = get_engine(f"sqlite:///{tmp_path / 'home' / 'nepaqa.db'}")
    with engine.connect() as c:
        rows = c.execute(select(tables.audit_log.c.actor, tables.audit_log.c.role, tables.audit_log.c.action)).all()
    assert ("command line", "admin", "upload documents") in [tuple(r) for r in rows]
    assert ("command line", "admin", "delete") in [tuple(r) for r in rows]


def test_with_sign_in_on_a_thread_that_lost_its_person_is_nobody():
    """A thread with no person set (no Streamlit session behind it) must not become the local admin once sign-in is
    on: the app's resolver gives nobody there, and the local user is never a fallback."""
    import threading

    from pages._gate import actor_now
    access.require_sign_in()
    access.set_resolver(lambda: access.LOCAL_USER)  # even a resolver that answers the local user
    seen: list[object] = []

    def attempt() -> None:
        seen.append(actor_now())
        try:
            access.authorize(access.Action.ASK)
            seen.append("allowed")
        except AccessDeniedError:
            seen.append("refused")
    t = threading.Thread(target=attempt)
    t.start()
    t.join(30)
    assert seen == [None, "refused"]
