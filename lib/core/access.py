"""Who may do what: the five roles, the actions that change data or spend a key, the one policy table between
them, and ``authorize``, which every such action in ``lib`` calls before it acts (argilla's server is the model:
fetch, authorize, act).

The person acting is an ``Actor`` held in a context variable for the current thread: the app sets it from the
signed-in account on every rerun, the command line runs as ``CLI_ADMIN``, a job runs as the person who started it.
Nobody set: the single local user (an admin) where sign-in is off, and nobody at all (every action refused) once
the app has said that sign-in is on (``require_sign_in``), so a page that forgets to say who is acting changes
nothing.
"""
from __future__ import annotations

import contextlib
import contextvars
import enum
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from lib.core.errors import UserError

P = ParamSpec("P")
R = TypeVar("R")


class Role(enum.IntEnum):
    """Each role may do what the ones below it may, and more."""
    VIEWER = 1  # read, search, ask with local models
    ANALYST = 2  # also connected models, uploads, benchmarks, metadata edits
    EXPERT = 3  # also labels and votes
    ADJUDICATOR = 4  # also final labels
    ADMIN = 5  # also deletions, settings, roles, other people's jobs, the audit record

    @property
    def word(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Role:
        try:
            return cls[str(text).strip().upper()]
        except KeyError:
            raise UserError(f"'{text}' is not a role; the roles are {', '.join(r.word for r in cls)}.") from None


class Action(enum.Enum):
    """What a person does that changes data or spends a key (and reading the audit record). The value is how
    the audit record and messages name it."""
    ASK = "ask"  # ask a question (local models), which keeps it in the Ask history
    EXPORT = "export"  # download labels, votes, results
    CONNECTED_MODEL = "use a connected model"  # a model that spends a configured key or a server's time
    UPLOAD = "upload documents"
    EDIT_METADATA = "edit metadata"
    RUN_BENCHMARK = "run benchmarks and exams"  # and build item sets and arenas
    LABEL = "label items"
    VOTE = "vote in arenas"
    ADJUDICATE = "set final labels"
    DELETE = "delete"
    SETTINGS = "change settings"  # re-embedding, repairs
    MANAGE_ROLES = "manage roles"
    OTHERS_JOBS = "manage other people's jobs"
    READ_AUDIT = "read the audit record"


# The policy: the least role that may take each action. Nothing else in the code decides who may do what.
POLICY: dict[Action, Role] = {
    Action.ASK: Role.VIEWER,
    Action.EXPORT: Role.VIEWER,
    Action.CONNECTED_MODEL: Role.ANALYST,
    Action.UPLOAD: Role.ANALYST,
    Action.EDIT_METADATA: Role.ANALYST,
    Action.RUN_BENCHMARK: Role.ANALYST,
    Action.LABEL: Role.EXPERT,
    Action.VOTE: Role.EXPERT,
    Action.ADJUDICATE: Role.ADJUDICATOR,
    Action.DELETE: Role.ADMIN,
    Action.SETTINGS: Role.ADMIN,
    Action.MANAGE_ROLES: Role.ADMIN,
    Action.OTHERS_JOBS: Role.ADMIN,
    Action.READ_AUDIT: Role.ADMIN,
}


@dataclass(frozen=True)
class Actor:
    """A person acting: ``id`` is the account's e-mail (or the provider's subject), ``role`` None for a signed-in
    account that has no role yet. ``signed_in``: the identity was checked by a sign-in provider, so labels and
    votes must be this person's own."""
    id: str
    role: Role | None
    signed_in: bool = False
    name: str = ""

    @property
    def shown(self) -> str:
        return self.name or self.id


LOCAL_USER = Actor("local user", Role.ADMIN, name="local user (sign-in not configured)")
CLI_ADMIN = Actor("command line", Role.ADMIN, name="local admin (command line)")
APP_START = Actor("app start-up", Role.ADMIN, name="the app's own start-up maintenance")

_acting: contextvars.ContextVar[Actor | None] = contextvars.ContextVar("nepaqa_actor", default=None)
_sign_in_required = False
_resolver: Callable[[], Actor | None] | None = None
_on_refusal: Callable[[Action, str, Actor | None], None] | None = None


class AccessDeniedError(UserError):
    """An action the person acting may not take; the message says which role it needs and whom to ask."""


def require_sign_in(on: bool = True) -> None:
    """Said by the app when sign-in is configured: from then on an action with nobody acting is refused."""
    global _sign_in_required
    _sign_in_required = on


def sign_in_required() -> bool:
    return _sign_in_required


def set_resolver(resolver: Callable[[], Actor | None] | None) -> None:
    """How to find the person acting where nobody was set in this thread: the app's, for the callbacks Streamlit
    runs before its script (the buttons' on_click), which read the signed-in account afresh."""
    global _resolver
    _resolver = resolver


def on_refusal(hook: Callable[[Action, str, Actor | None], None] | None) -> None:
    """Who hears of each refusal (lib/storage/audit.py records it), so every refused attempt is in the record."""
    global _on_refusal
    _on_refusal = hook


def current() -> Actor | None:
    """The person acting in this thread: the one set, else the app's resolver's, else the local user where
    sign-in is off, else nobody."""
    who = _acting.get()
    if who is None and _resolver is not None:
        try:
            who = _resolver()
        except Exception:  # noqa: BLE001 - a thread with no session (a job's): nobody from there
            who = None
    if who is not None and (who is not LOCAL_USER or not _sign_in_required):
        return who
    return None if _sign_in_required else LOCAL_USER


def set_actor(actor: Actor | None) -> None:
    """Set the person acting in this thread until changed (the app, once per rerun)."""
    _acting.set(actor)


@contextmanager
def acting_as(actor: Actor | None) -> Iterator[Actor | None]:
    """Act as ``actor`` inside the block (a job as its starter, the command line as the local admin)."""
    token = _acting.set(actor)
    try:
        yield actor
    finally:
        _acting.reset(token)


def allowed(action: Action, actor: Actor | None = None) -> bool:
    """Whether ``actor`` (default: the person acting) may take ``action``; pages ask this to hide what a role
    cannot do."""
    who = actor if actor is not None else current()
    return bool(who and who.role is not None and who.role >= POLICY[action])


def authorize(action: Action, what: str = "") -> Actor:
    """The person acting, when they may take ``action`` (on ``what``, for the message); AccessDeniedError otherwise
    (and the refusal told to ``on_refusal``'s hook, which records it)."""
    who = current()
    if who is None:
        why = f"Sign in first: nobody is signed in, so this app cannot {action.value}."
    elif who.role is None:
        why = (f"Your account ({who.shown}) has no role yet, so it cannot {action.value}. Ask an admin of this app "
               "to give you one.")
    elif who.role < POLICY[action]:
        why = (f"You cannot {action.value}{f' ({what})' if what else ''}: that needs the {POLICY[action].word} role, "
               f"and {who.shown} is {_a(who.role.word)}. Ask an admin of this app if you need it.")
    else:
        return who
    if _on_refusal is not None:
        with contextlib.suppress(Exception):  # the refusal stands even where it cannot be recorded
            _on_refusal(action, what, who)
    raise AccessDeniedError(why)


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def own_name(annotator: str) -> None:
    """Labels and votes belong to their accounts: with sign-in on, a person labels only as themself."""
    who = current()
    if who is not None and who.signed_in and annotator.strip().casefold() != who.id.casefold():
        raise AccessDeniedError(f"You are signed in as {who.id}, so you can label and vote only as yourself, not as "
                                f"'{annotator}'.")


def in_this_context(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` wrapped to run in a copy of this thread's context, so a pool's threads act as the caller."""
    ctx = contextvars.copy_context()

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return ctx.copy().run(fn, *args, **kwargs)
    return run
