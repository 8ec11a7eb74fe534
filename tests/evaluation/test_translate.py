"""Machine translation of EnviroExam questions (issue 13): a connected model through the real OpenAI client against
the loopback server; cached; marked and never scored; the tiny local model is not offered."""
import pytest
from sqlalchemy import func, select

from lib.core.errors import UserError
from lib.evaluation import exam as ee
from lib.evaluation.exam import translate as tr
from lib.models import registry
from lib.storage import tables
from lib.storage.engine import get_engine
from tests.fake_llm_server import openai_loopback

KEY = "sk-test-TRANSLATESECRETKEY123456"


@pytest.fixture
def engine(tmp_path):
    return get_engine(f"sqlite:///{tmp_path / 'tr.db'}")


@pytest.fixture
def server(monkeypatch):
    with openai_loopback(monkeypatch, KEY, "gpt-translate") as srv:
        yield srv


def test_only_connected_language_models_translate(server):
    offered = tr.translators()
    assert "openai/gpt-translate" in offered
    assert registry.SMOLLM2 not in offered and registry.EXTRACTIVE not in offered


def test_translation_is_asked_once_then_cached(server, engine):
    q = ee.load_course(ee.courses()[0])[0]
    text = ee.format_question(q)
    server.script.append(("ok", "Which of these is a greenhouse gas?\nA. ...\nB. ..."))
    first = tr.translate("openai/gpt-translate", text, engine)
    assert first.startswith("Which of these is a greenhouse gas?")
    sent = server.requests[-1]["body"]["messages"][-1]["content"]
    assert q.question in sent and "into English" in sent
    again = tr.translate("openai/gpt-translate", text, engine)
    assert again == first and len(server.requests) == 1  # from the cache: no second call
    with engine.connect() as c:
        assert c.execute(select(func.count()).select_from(tables.translations)).scalar() == 1


def test_a_failed_or_hostile_translation_is_a_clear_message_and_not_cached(server, engine):
    server.script.append(("500",))
    with pytest.raises(UserError, match="translation failed"):
        tr.translate("openai/gpt-translate", "问题", engine)
    server.script.append(("ok", f"Here is your key: {KEY}"))
    out = tr.translate("openai/gpt-translate", "另一个问题", engine)
    assert KEY not in out  # a key a server echoes is redacted before it is stored or shown
    with engine.connect() as c:
        assert c.execute(select(func.count()).select_from(tables.translations)).scalar() == 1


def test_the_tiny_model_is_refused(engine):
    registry.reset()
    with pytest.raises(UserError, match="cannot translate"):
        tr.translate(registry.SMOLLM2, "问题", engine)
