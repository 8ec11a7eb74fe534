import multiprocessing as mp

import pytest
from sqlalchemy import func, select

from lib import annotations as ann
from lib import store
from lib.benchmark.dataset import Item
from lib.errors import UserError


def make_items(n):
    return [Item(id=f"I{i}", question_type="recall", question=f"Q{i}?", answer=f"A{i}", context=f"C{i}", doc="d",
                 page_number=i) for i in range(n)]


@pytest.fixture
def engine(tmp_path):
    return store.get_engine(f"sqlite:///{tmp_path / 'labels.db'}")


def test_batch_is_seeded_and_shared(engine):
    ann.add_items(make_items(30), "set1", engine)
    b1 = ann.create_batch("set1", 10, seed=7, engine=engine)
    b2 = ann.create_batch("set1", 10, seed=7, engine=engine)
    assert b1 == b2 and len(ann.batch_items(b1, engine)) == 10
    assert ann.batch_items(b1, engine) != ann.batch_items(ann.create_batch("set1", 10, seed=8, engine=engine), engine)
    with pytest.raises(UserError):
        ann.create_batch("nothing", 5, engine=engine)


def test_relabel_replaces_and_keeps_history(engine):
    ann.save_label("I1", "ann", "answer_correct", "yes", engine)
    ann.save_label("I1", "ann", "answer_correct", "no", engine)
    labels = ann.labels(engine)
    assert [(lb.annotator, lb.value) for lb in labels] == [("ann", "no")]
    assert [h["value"] for h in ann.history(engine)] == ["yes", "no"]
    with pytest.raises(UserError):
        ann.save_label("I1", "ann", "answer_correct", "perhaps", engine)
    with pytest.raises(UserError):
        ann.save_label("I1", " ", "answer_correct", "yes", engine)


def test_disagreements_and_adjudication(engine):
    for who, v in (("A", "yes"), ("B", "no")):
        ann.save_review("I1", who, {"type_correct": "yes", "answer_correct": v, "proof_supports": "yes"}, engine)
    dis = ann.disagreements(engine=engine)
    assert [(d["item_id"], d["label"]) for d in dis] == [("I1", "answer_correct")]
    ann.adjudicate("I1", "answer_correct", "yes", engine)
    final = {(r["item_id"], r["label"]): (r["value"], r["how"]) for r in ann.adjudicated_set(engine)}
    assert final[("I1", "answer_correct")] == ("yes", "adjudicated")
    assert final[("I1", "type_correct")] == ("yes", "unanimous")
    assert all(lb.annotator != ann.ADJUDICATOR for lb in ann.labels(engine))
    assert ann.done_items("A", ["I1", "I2"], engine) == {"I1"}


def _writer(url, who, n, q):
    try:
        eng = store.get_engine(url)
        for i in range(n):
            ann.save_label(f"I{i}", who, "answer_correct", "yes" if i % 2 else "no", eng)
            ann.save_label(f"I{i}", who, "proof_supports", "yes", eng)
        q.put("ok")
    except Exception as exc:  # noqa: BLE001 - report to the parent
        q.put(repr(exc))


def concurrent_writers(url, n=60):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(url, who, n, q)) for who in ("alice", "bob")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    return [q.get(timeout=5) for _ in procs]


def test_two_processes_saving_at_once_sqlite(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    store.get_engine(url)  # create tables first, as the app does at start
    assert concurrent_writers(url) == ["ok", "ok"]
    eng = store.get_engine(url)
    with eng.connect() as c:
        assert c.execute(select(func.count()).select_from(store.labels)).scalar() == 2 * 60 * 2
        assert c.execute(select(func.count()).select_from(store.label_history)).scalar() == 2 * 60 * 2


@pytest.fixture
def pg_url():
    """A fresh PostgreSQL database for this test, on the server `bash .ci/run` starts on 127.0.0.1."""
    import os
    import uuid

    from sqlalchemy import create_engine, text

    admin = os.environ.get("NEPAQA_TEST_PG_URL")
    assert admin, "set NEPAQA_TEST_PG_URL to a PostgreSQL admin URL (bash .ci/run starts one and sets it)"
    name = f"nepaqa_test_{uuid.uuid4().hex[:8]}"
    eng = create_engine(admin, isolation_level="AUTOCOMMIT")
    with eng.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = admin.rsplit("/", 1)[0] + "/" + name
    yield url
    store._engine_for(url).dispose()
    with eng.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    eng.dispose()


def test_postgres_store_and_two_processes_at_once(pg_url):
    eng = store.get_engine(pg_url)
    assert eng.dialect.name == "postgresql"
    ann.add_items(make_items(5), "pg", eng)
    ann.save_label("I1", "ann", "answer_correct", "yes", eng)
    ann.save_label("I1", "ann", "answer_correct", "no", eng)
    assert [(lb.value) for lb in ann.labels(eng)] == ["no"]
    assert concurrent_writers(pg_url) == ["ok", "ok"]
    with eng.connect() as c:
        assert c.execute(select(func.count()).select_from(store.labels)).scalar() == 1 + 2 * 60 * 2
