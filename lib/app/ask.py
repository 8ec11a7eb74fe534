"""The Ask use case: what a question is asked with (``Settings``), what stops a run, asking and keeping the answers,
the answer on screen with the settings it was asked with (``Grid``) and what has changed since, a saved answer
reopened, and the history as its table shows it. The page reads its widgets, calls these and draws what comes
back; the answers themselves are lib/qa/ask.py's."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields

from lib.app import volumes as volumes_case
from lib.core import QUOTES_ONLY, access, clip
from lib.evaluation.benchmark import load_sample_items
from lib.models import registry
from lib.qa import MODE_LABELS
from lib.qa import ask as ask_lib
from lib.qa.ask import AskResult, HistoryRow, scope_key
from lib.qa.services import Corpus

NEEDS_DOCUMENT = ("pdf", "rag")  # the context modes that read an indexed document
WORDS = {"question": "question", "models": "models", "modes": "context modes", "scope": "documents", "k": "k",
         "closed": "closed (yes/no)", "balanced": "balanced", "gold": "gold passage"}
HISTORY_COLUMNS = ("Asked", "By", "Question", "Documents", "Answers", "Yes / no", "Failed")


@dataclass(frozen=True)
class Settings:
    """What a question is asked with: the controls above the answers."""

    question: str
    models: list[str]
    modes: list[str]
    scope: str | list[str] | None  # "*", one id, several ids, or None (no document)
    k: int | None  # passages per search, where retrieval runs
    closed: bool
    balanced: bool | None
    gold: str | None = None  # the passage gold mode is given

    def problem(self) -> str | None:
        """What is still to be chosen before Run can ask, in words that say what to do; None when nothing is."""
        if not self.question.strip():
            return "Type a question first, then Run (or press Ctrl+Enter in the question box)."
        if not (self.models and self.modes):
            return "Choose at least one model and one context mode, then Run."
        return None

    def missing_document(self) -> str | None:
        """Why the chosen context modes cannot run here (they read a document, and none is chosen); None when
        they can."""
        if set(NEEDS_DOCUMENT) & set(self.modes) and not self.scope:
            return (f"{MODE_LABELS['pdf']} and {MODE_LABELS['rag']} read a document: choose one under “Search in” "
                    f"above (or index one on the Documents page), or use {MODE_LABELS['none']} or "
                    f"{MODE_LABELS['gold']}.")
        return None


@dataclass(frozen=True)
class Grid(Settings):
    """The answers on screen, with the settings they were asked with (the scope as history keeps it)."""

    rows: list[AskResult] = field(default_factory=list)

    def changed(self, now: Settings) -> list[str]:
        """The settings (in words) that differ between these answers and the controls; one the answers' record
        does not hold (None) is not counted, and k and balanced count only where retrieval ran."""
        rag = "rag" in self.modes
        out = []
        for f in fields(Settings):
            key, mine, theirs = f.name, getattr(self, f.name), getattr(now, f.name)
            if mine is None or (key in ("k", "balanced") and not rag):
                continue
            if key in ("models", "modes"):
                differs = set(mine) != set(theirs)
            elif key in ("question", "gold"):
                differs = " ".join(str(mine).split()) != " ".join(str(theirs or "").split())
            elif key == "scope":
                differs = bool(set(NEEDS_DOCUMENT) & set(self.modes)) and mine != scope_key(theirs)
            else:
                differs = mine != theirs
            if differs:
                out.append(WORDS[key])
        return out

    def asked_over(self, scope_label: Callable[[str | None], str]) -> str:
        """One line: what the answers were asked over."""
        bits = []
        if set(NEEDS_DOCUMENT) & set(self.modes):
            bits.append(f"over {scope_label(scope_key(self.scope))}")
        if "rag" in self.modes and self.k:
            bits.append(f"{self.k} passages per search (k)" + (" · balanced" if self.balanced else ""))
        if self.closed:
            bits.append("closed (yes/no)")
        return "Answered " + " · ".join(bits) if bits else "Answered with no document"


def gold_of(results: Sequence[AskResult]) -> str | None:
    """The gold passage the answers in gold mode were given."""
    for r in results:
        if r.mode == "gold" and r.contexts:
            return r.contexts[0].text or None
    return None


def gold_choices() -> dict[str, str]:
    """The gold-passage picker's choices, each bundled NEPAQuAD item named by its id, type and question (cut at 90
    characters), with its passage. Two items that would show the same name keep the first's passage."""
    out: dict[str, str] = {}
    for it in load_sample_items():
        out.setdefault(f"{it.id} · {it.question_type} · {it.question[:90]}", it.context)
    return out


def shown(settings: Settings, results: Sequence[AskResult]) -> Grid:
    """The answers as the page keeps them, with their settings: the gold passage only where its mode ran (taken
    from the answers when the settings do not hold it)."""
    gold = settings.gold if settings.gold is not None or "gold" not in settings.modes else gold_of(results)
    return Grid(**{f.name: getattr(settings, f.name) for f in fields(Settings)}
                | {"models": list(settings.models), "modes": list(settings.modes), "scope": scope_key(settings.scope),
                   "gold": gold if "gold" in settings.modes else None, "rows": list(results)})


def run(settings: Settings, services: Corpus, on_result: Callable[[AskResult], None] | None = None,
        on_partial: Callable[[str, str, str], None] | None = None) -> Grid:
    """Ask every model in every context mode (each answer passed to ``on_result`` as it arrives), keep them in
    the history, and return them as the page shows them."""
    k = settings.k or ask_lib.DEFAULT_K
    results = ask_lib.ask_grid(settings.question, settings.models, settings.modes, services, settings.scope, k,
                               settings.gold, settings.closed, on_result=on_result,
                               balanced=bool(settings.balanced), on_partial=on_partial)
    ask_lib.save_history(results, settings.scope, services=services, k=k, balanced=bool(settings.balanced))
    return shown(settings, results)


def reopened(batch_id: str) -> Grid | None:
    """A saved batch as it was asked (None when it is gone): its models and modes in the order answered."""
    rows = ask_lib.load_batch(batch_id)
    if not rows:
        return None
    saved = ask_lib.batch_settings(batch_id)
    settings = Settings(rows[0].question, list(dict.fromkeys(r.model for r in rows)),
                        list(dict.fromkeys(r.mode for r in rows)), saved.scope, saved.k, bool(rows[0].closed),
                        saved.balanced)
    return shown(settings, rows)


def scope_label(ids: object, titles: Mapping[str, str]) -> str:
    """A saved scope in words: the document's title, "all documents", or several titles (``titles``: id → title,
    as pickers show them; a trailing " (file)" is left out). An EIS's volumes, all of them in order, are named as
    that EIS where ``titles`` names their ids joined by commas (``eis_titles``)."""
    if not isinstance(ids, str) or not ids:  # None, or NaN where a table filled a column of missing values
        return "no document"
    if ids == "*":
        return "all documents"
    if "," in ids and ids in titles:
        return titles[ids]
    names = [titles[d].rsplit(" (", 1)[0] if d in titles else "a deleted document" for d in ids.split(",")]
    return names[0] if len(names) == 1 else f"{len(names)} documents: " + "; ".join(names)


def eis_titles(services: Corpus) -> dict[str, str]:
    """Each EIS of volumes as a saved scope names it: its volumes' ids joined by commas → "Title, all 3 volumes"."""
    return {",".join(e.doc_ids): f"{e.title}, all {len(e.volumes)} volumes" for e in volumes_case.every(services)}


def sent_options(model_id: str, closed: bool = False) -> str:
    """What was sent with the call, from the model's declared options ("" for a model not configured here); a
    closed question's answer has the closed cap, an open one the model's."""
    try:
        m = registry.find(model_id)
    except Exception:  # noqa: BLE001 - an unknown model shows its error in the cell instead
        return ""
    if not m.language_model:
        return "deterministic (no sampling)"
    t = m.options.temperature
    temperature = "model default temperature" if t is None else f"temperature {t:g}"
    cap = ask_lib.ANSWER_BUDGET_CLOSED if closed else m.answer_cap(ask_lib.ANSWER_BUDGET_OPEN)
    return f"{temperature} · answers up to {cap:,} tokens"


def history_table(hist: Sequence[HistoryRow], labels: Mapping[str, str],
                  titles: Mapping[str, str]) -> list[dict[str, object]]:
    """The history as its table shows it: one row per question asked (newest first, as ``hist`` is), with how many
    answers it got from how many models, a yes/no question's verdicts counted, and the answers that failed. The
    answers themselves are read whole where a question is reopened, and in the downloads. (One row per answer, with
    the answer's text, ran to nine columns and past the page's right edge.)"""
    batches: dict[str, list[HistoryRow]] = {}
    for h in hist:
        batches.setdefault(h.batch_id, []).append(h)
    out: list[dict[str, object]] = []
    # who asked: a column only where accounts asked (without sign-in every question is the one local user's)
    named = any(h.asked_by not in (None, access.LOCAL_USER.id) for h in hist)
    for rows in batches.values():
        first = rows[0]
        models = {labels.get(h.model, h.model) for h in rows}
        verdicts = [h.verdict or "none" for h in rows if h.closed and not h.error]
        order = dict.fromkeys(["yes", "no", QUOTES_ONLY, "none", *verdicts])  # every verdict counted, in this order
        counted = " · ".join(f"{v} {verdicts.count(v)}" for v in order if v in verdicts)
        row: dict[str, object] = dict(zip(HISTORY_COLUMNS, (
            str(first.created_at)[:16], first.asked_by or "", first.question, scope_label(first.doc_id, titles),
            f"{len(rows)} from {len(models)} model{'s' if len(models) > 1 else ''}", counted,
            sum(1 for h in rows if h.error) or "", ), strict=True))
        out.append(row if named else {k: v for k, v in row.items() if k != "By"})
    return out


def history_choices(hist: Sequence[HistoryRow], titles: Mapping[str, str]) -> dict[str, str]:
    """Each saved question (batch) once, newest first (as ``hist`` is), named as the Reopen picker shows it."""
    out: dict[str, str] = {}
    for h in hist:
        if h.batch_id not in out:
            out[h.batch_id] = f"{h.created_at[:16]} · {clip(h.question, 90)} · {clip(scope_label(h.doc_id, titles), 40)}"
    return out
