"""Who may start, cancel, dismiss and resume jobs, and whom a job runs as. Each kind of job names the action it
is (an ingest uploads, a benchmark runs a benchmark, a re-embedding changes settings) and, from its parameters,
what more it needs (a connected model). A job runs as the person who started it, with the role they had then;
cancelling, dismissing or resuming another person's job is an admin's."""
from __future__ import annotations

from collections.abc import Callable

from lib.core import access
from lib.core.access import Action, Actor, Role
from lib.core.json_types import JSONObject
from lib.storage import accounts
from lib.storage.audit import guarded, record

Needs = Callable[[JSONObject], list[Action]]
_actions: dict[str, Action] = {}
_needs: dict[str, Needs] = {}


def register(kind: str, action: Action, needs: Needs | None = None) -> None:
    """Say what starting a job of ``kind`` is, and what more its parameters need (registered by the app)."""
    _actions[kind] = action
    if needs is not None:
        _needs[kind] = needs


def authorize_start(kind: str, params: JSONObject, title: str) -> Actor:
    """The person starting this job, once allowed (each check recorded); AccessDeniedError otherwise. A kind nobody
    registered an action for is an admin's."""
    action = action_of(kind)
    access.authorize(action, title)  # first: parameters are read only for someone who may start the job
    more = _needs[kind](params) if kind in _needs else []
    for need in more:
        access.authorize(need, title)
    with guarded(action, title, "job started") as who:
        pass
    for need in more:
        record(need, title, detail="in a job", actor=who)
    return who


def action_of(kind: str) -> Action:
    """What starting (or resuming) a job of ``kind`` is; a kind nobody registered is an admin's."""
    return _actions.get(kind, Action.SETTINGS)


def runs_as(owner: str | None, owner_role: str | None) -> Actor | None:
    """Whom a job acts as: its starter, with the lower of their role when they started it and their e-mail's role
    now (a person demoted since runs with no more than they have now). None for a job from before accounts: the process's
    own person, the local user or the command line."""
    if not owner:
        return None
    then = Role.parse(owner_role) if owner_role else None
    if owner in _LOCAL:
        return Actor(owner, then)
    now = accounts.role_for(owner)  # their e-mail's row; a role from a group is known only at sign-in: then's
    return Actor(owner, min(then, now) if then and now else then, signed_in=True)


_LOCAL = {access.LOCAL_USER.id, access.CLI_ADMIN.id, access.APP_START.id}


def check_own(owner: str | None, what: str) -> None:
    """A person may manage their own jobs; another person's (or one from before accounts, with sign-in on) is an
    admin's."""
    who = access.authorize(Action.ASK, what)
    if owner != who.id and (owner or access.sign_in_required()):
        access.authorize(Action.OTHERS_JOBS, what)


def may_manage(owner: str | None) -> bool:
    """Whether the person acting may cancel, dismiss or resume a job started by ``owner`` (pages hide the rest)."""
    try:
        check_own(owner, "")
    except access.AccessDeniedError:
        return False
    return True
