"""Sign-in as the app meets it: who the signed-in account is (its e-mail, groups and role, read again from the role
table on every action), whether its sign-in has expired, whether the sign-in provider answers, and whether a
server without sign-in is open to a network. The page draws what these say; lib/core/access.py decides."""
from __future__ import annotations

import ipaddress
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from lib.core import access, config
from lib.core.access import Action, Actor
from lib.storage import accounts, audit

ANONYMOUS_SETTING = "NEPAQA_ALLOW_ANONYMOUS"
CONTACT_SETTING = "NEPAQA_ACCESS_CONTACT"  # whom a person with no role asks, instead of the admins' e-mails
HOW_TO_SIGN_IN = ("Add an [auth] section (OpenID Connect) to .streamlit/secrets.toml: docs/accounts.md has the "
                  "blocks for Login.gov, Okta and Entra ID. To share it on a network without sign-in anyway (everyone "
                  f"who reaches it is an admin), set {ANONYMOUS_SETTING}=1.")


@dataclass(frozen=True)
class Gate:
    """What the app shows before any page: ``open`` (the actor may go on), ``sign_in``, ``expired``,
    ``no_role`` or ``provider_down``, with the words to show."""
    state: str
    actor: Actor | None = None
    message: str = ""


def groups_of(user: Mapping[str, object]) -> list[str]:
    """The provider's groups claim (``groups``, or Entra ID's ``roles``) as a list of names."""
    raw = user.get("groups") or user.get("roles") or []
    if isinstance(raw, str):
        return [g.strip() for g in raw.split(",") if g.strip()]
    return [str(g) for g in raw] if isinstance(raw, list | tuple) else []


def gate(user: Mapping[str, object], metadata_url: str | None = None, now: float | None = None) -> Gate:
    """Where a visitor stands, from ``st.user`` (the ID token's claims, in a cookie Streamlit signed)."""
    if user.get("is_logged_in") is not True:
        down = provider_problem(metadata_url) if metadata_url else None
        return Gate("provider_down", message=down) if down else Gate("sign_in")
    exp = user.get("exp")
    if not isinstance(exp, int | float) or exp <= (now if now is not None else time.time()):
        return Gate("expired", message="Your sign-in has expired. Sign in again to go on.")
    email = str(user.get("email") or "").strip().lower()
    who = email or str(user.get("sub") or "").strip().lower()
    # a role goes by e-mail only where the provider has not said the address is unverified (a person could
    # otherwise claim an admin's address at a provider that lets them set it)
    by_email = email if user.get("email_verified") is not False else ""
    role = accounts.role_for(by_email, groups_of(user)) if by_email or groups_of(user) else None
    actor = Actor(who, role, signed_in=True, name=str(user.get("name") or ""))
    if role is None:
        admins, contact = accounts.admins(), config.get(CONTACT_SETTING)
        ask = (f"Ask {contact} to give you a role." if contact else
               f"Ask an admin of this app ({', '.join(admins[:3])}{' …' if len(admins) > 3 else ''}) to give you a "
               "role." if admins else "Ask whoever set up this app to give you a role (the NEPAQA_ROLES setting).")
        return Gate("no_role", actor, f"You are signed in as {who}, but your account has no role here yet. {ask}")
    return Gate("open", actor)


_probe: dict[str, tuple[float, str | None]] = {}
PROBE_EVERY_S = 5.0


def provider_problem(metadata_url: str, timeout: float = 3.0) -> str | None:
    """Why the sign-in provider cannot be reached (its discovery document), or None; asked at most every 5 s."""
    seen = _probe.get(metadata_url)
    if seen and time.monotonic() - seen[0] < PROBE_EVERY_S:
        return seen[1]
    host = urlsplit(metadata_url).netloc or metadata_url
    why: str | None = None
    try:
        with urllib.request.urlopen(metadata_url, timeout=timeout) as r:  # noqa: S310 - the configured provider
            if r.status != 200:
                why = f"it answered {r.status}"
    except urllib.error.HTTPError as exc:
        why = f"it answered {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        why = "it did not answer in time" if "timed out" in str(reason) else f"it cannot be reached ({reason})"
    message = (None if why is None else f"The sign-in service ({host}) is not working: {why}. Nobody can sign in "
               "until it is back; try again in a few minutes, and if it stays down, tell whoever runs this app.")
    _probe[metadata_url] = (time.monotonic(), message)
    return message


def is_local_address(address: str | None) -> bool:
    """Whether a server bound to ``address`` is reachable only from this machine (Streamlit's default, empty,
    listens on every interface, so it is not)."""
    a = (address or "").strip().strip("[]")
    if a == "localhost":
        return True
    try:
        return ipaddress.ip_address(a).is_loopback
    except ValueError:
        return False


def exposed_without_sign_in(address: str | None) -> str | None:
    """The message when a server without sign-in listens beyond this machine and nobody said that is intended."""
    if is_local_address(address) or config.get(ANONYMOUS_SETTING) == "1":
        return None
    return (f"This server listens on {address or 'every network interface'} without sign-in, so anyone who reaches "
            f"it could index and delete documents and spend the configured keys. It serves nothing until sign-in is "
            f"configured. {HOW_TO_SIGN_IN}")


def local_line() -> str:
    """The one line the app shows when sign-in is off."""
    return (f"Single local user ({access.LOCAL_USER.role.word if access.LOCAL_USER.role else ''}): sign-in is not "
            "configured, so whoever opens this app can do everything.")


# The Accounts page (admins): the role table and the audit record.
role_rows = accounts.rows
set_role = accounts.set_role
remove_role = accounts.remove
ROLES_SETTING = accounts.ROLES_SETTING
ROLES = [r.word for r in access.Role]


def audit_lines(limit: int = 500) -> list[dict[str, object]]:
    """The latest audit lines, newest first, as rows to draw (admins only)."""
    return [{"when (UTC)": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(e.at)), "who": e.actor, "role": e.role,
             "did": e.action, "to": e.object, "outcome": e.outcome, "detail": e.detail}
            for e in audit.entries(limit)]


audit_csv = audit.export_csv


def download(what: str, make: Callable[[], str | bytes]) -> Callable[[], str | bytes]:
    """A download button's data: made when the button is clicked (on Streamlit's own thread, so it carries the
    person acting with it) and recorded as an export of ``what``."""
    def made() -> str | bytes:
        with audit.guarded(Action.EXPORT, what):
            return make()
    return access.in_this_context(made)
