"""The role table: who has which role, by e-mail or by the sign-in provider's group ("group:<name>"). Seeded from
the NEPAQA_ROLES setting; admins change it on the Accounts page (``set_role``, ``remove``), and a change there
is read on the person's next action. A person's role is the highest of their e-mail's and their groups' rows."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.engine import Engine

from lib.core import config
from lib.core.access import Action, Role
from lib.core.errors import UserError
from lib.storage import tables
from lib.storage.audit import guarded
from lib.storage.engine import get_engine, upsert

ROLES_SETTING = "NEPAQA_ROLES"  # "admin@agency.gov=admin, group:nepa-experts=expert, …"
GROUP = "group:"


@dataclass(frozen=True)
class RoleRow:
    """One row: the subject (an e-mail, or ``group:<name>``), its role, where it came from (setting, admin,
    migration), who set it and when (epoch seconds)."""
    subject: str
    role: Role
    source: str
    set_by: str | None
    set_at: float


def parse_setting(raw: str) -> dict[str, Role]:
    """NEPAQA_ROLES as {subject: role}; a UserError that names the bad entry."""
    out: dict[str, Role] = {}
    for part in raw.replace(";", ",").replace("\n", ",").split(","):
        if not part.strip():
            continue
        subject, sep, role = part.rpartition("=")
        if not sep or not subject.strip():
            raise UserError(f"{ROLES_SETTING}: '{part.strip()}' is not 'e-mail=role' or 'group:name=role'.")
        out[check_subject(subject)] = Role.parse(role)
    return out


def check_subject(subject: str) -> str:
    """An e-mail or group:<name>, in lower case; a UserError for anything else."""
    s = (subject or "").strip().lower()
    if s.startswith(GROUP) and len(s) > len(GROUP):
        return s
    if "@" in s.strip("@") and " " not in s:
        return s
    raise UserError(f"'{subject}' is neither an e-mail address nor a group written as group:<name>.")


_seeded: dict[str, str] = {}
_seed_lock = threading.Lock()


def seed(engine: Engine | None = None) -> None:
    """Rows from NEPAQA_ROLES: added where the subject has no row, updated where the row came from the setting, and
    removed where the setting no longer names a subject it gave a role; a row an admin set is kept. Once per
    process and value of the setting."""
    eng = engine or get_engine()
    raw = config.get(ROLES_SETTING) or ""
    key = str(eng.url)
    with _seed_lock:
        if _seeded.get(key) == raw:
            return
        wanted = parse_setting(raw)
        t = tables.user_roles
        with eng.begin() as c:
            have = {r.subject: r.source for r in c.execute(select(t.c.subject, t.c.source))}
        rows = [{"subject": s, "role": r.word, "source": "setting", "set_by": ROLES_SETTING, "set_at": time.time()}
                for s, r in wanted.items() if have.get(s, "setting") == "setting"]
        dropped = [s for s, src in have.items() if src == "setting" and s not in wanted]  # taken out of the setting
        with eng.begin() as c:
            if rows:
                c.execute(upsert(eng, t, rows, ["subject"], ["role", "set_at"]))
            if dropped:
                c.execute(delete(t).where(t.c.subject.in_(dropped)))
        _seeded[key] = raw


def rows(engine: Engine | None = None) -> list[RoleRow]:
    """Every row, by subject."""
    eng = engine or get_engine()
    seed(eng)
    t = tables.user_roles
    with eng.connect() as c:
        found = c.execute(select(t).order_by(t.c.subject)).mappings().all()
    return [RoleRow(r["subject"], Role.parse(r["role"]), r["source"], r["set_by"], r["set_at"]) for r in found]


def role_for(email: str | None, groups: list[str] | tuple[str, ...] = (), engine: Engine | None = None) -> Role | None:
    """The highest role of this e-mail's row and its groups' rows; None when none has a row."""
    wanted = {x.strip().lower() for x in [email or "", *(f"{GROUP}{g}" for g in groups)] if x and x.strip()}
    found = [r.role for r in rows(engine) if r.subject in wanted]
    return max(found) if found else None


def admins(engine: Engine | None = None) -> list[str]:
    """The e-mails with the admin role (whom a person without a role should ask)."""
    return [r.subject for r in rows(engine) if r.role is Role.ADMIN and not r.subject.startswith(GROUP)]


def set_role(subject: str, role: Role | str, engine: Engine | None = None) -> None:
    """Give ``subject`` a role (admins only; recorded). The last admin e-mail cannot be lowered."""
    eng = engine or get_engine()
    s, r = check_subject(subject), role if isinstance(role, Role) else Role.parse(role)
    before = {x.subject: x.role for x in rows(eng)}
    with guarded(Action.MANAGE_ROLES, s, f"{before[s].word if s in before else 'no role'} → {r.word}", eng) as who:
        _keep_an_admin(before, s, r)
        with eng.begin() as c:
            c.execute(upsert(eng, tables.user_roles, {"subject": s, "role": r.word, "source": "admin",
                                                      "set_by": who.id, "set_at": time.time()},
                             ["subject"], ["role", "source", "set_by", "set_at"]))


def remove(subject: str, engine: Engine | None = None) -> None:
    """Take ``subject``'s row away (admins only; recorded). A row from NEPAQA_ROLES comes back at the next start
    while the setting names it."""
    eng = engine or get_engine()
    s = check_subject(subject)
    before = {x.subject: x.role for x in rows(eng)}
    with guarded(Action.MANAGE_ROLES, s, f"{before[s].word if s in before else 'no role'} → no role", eng):
        if s not in before:
            raise UserError(f"{s} has no role to remove.")
        _keep_an_admin(before, s, None)
        with eng.begin() as c:
            c.execute(delete(tables.user_roles).where(tables.user_roles.c.subject == s))


def _keep_an_admin(before: dict[str, Role], subject: str, new: Role | None) -> None:
    admins_left = [x for x, r in before.items() if r is Role.ADMIN and not x.startswith(GROUP) and x != subject]
    if before.get(subject) is Role.ADMIN and new is not Role.ADMIN and not admins_left:
        raise UserError(f"{subject} is the only admin: give someone else the admin role first, so the app keeps one.")
