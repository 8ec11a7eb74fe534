"""Who may start, cancel, dismiss and resume jobs, and whom a job runs as. Each kind of job names the action it
is (an ingest uploads, a benchmark runs a benchmark, a re-embedding changes settings) and, from its parameters,
what more it needs (a connected model). A job runs as the person who started it, with the role they had then;
cancelling, dismissing or resuming another person's job is an admin's."""
from __future__ import annotations

from collections.abc import Callable

from lib.core import access
from lib.core.access import Action, Actor, Role
from lib.core.json_types import JSONObject
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
    action = _actions.get(kind, Action.SETTINGS)
    access.authorize(action, title)  # first: parameters are read only for someone who may start the job
    try:
        more = _needs[kind](params) if kind in _needs else []
        for need in more:
            access.authorize(need, title)
    except access.AccessDeniedError:
        record(Action.CONNECTED_MODEL, title, "refused", f"in a {kind} job")
        raise
    with guarded(action, title, f"started a {kind} job") as who:
        pass
    for need in more:
        record(need, title, detail=f"in a {kind} job", actor=who)
    return who


def runs_as(owner: str | None, owner_role: str | None) -> Actor | None:
    """Whom a job acts as: its starter with their role then (None for a job from before accounts: the process's
    own person, the local user or the command line)."""
    if not owner:
        return None
    return Actor(owner, Role.parse(owner_role) if owner_role else None, signed_in=owner not in _LOCAL)


_LOCAL = {access.LOCAL_USER.id, access.CLI_ADMIN.id}


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
