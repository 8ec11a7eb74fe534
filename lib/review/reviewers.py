"""Who reviews, and what each reviewer may do: the names a person may not type, who may set final labels
(adjudicate), and whose labels a reviewer may import. The pages and the command line ask these same rules."""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence

from lib.core import config
from lib.core.errors import UserError
from lib.models import registry

ADJUDICATOR = "[adjudicated]"  # the annotator name under which final labels are stored; never typed by a person
# Who may set final labels: NEPAQA_ADJUDICATORS, comma-separated names or e-mails (compared without case).
ADJUDICATORS_SETTING = "NEPAQA_ADJUDICATORS"
HOW_TO_ADJUDICATE = (f"Adjudication (setting final labels) is off: no adjudicator is listed. To turn it on, set "
                     f"{ADJUDICATORS_SETTING} to the reviewers allowed to adjudicate (comma-separated names or "
                     f"e-mails, as they sign in or type their name), in the environment or in "
                     f".streamlit/secrets.toml, then restart the app.")

# Names a person cannot type: anything in brackets (the app's own names, such as [adjudicated]) and names that
# look like a judge model (its words, or a model id such as local/smollm2-135m).
_BRACKETS = "[](){}<>"
_JUDGE_LIKE = re.compile(r"\b(judges?|llms?|gpt[\w.-]*|chatgpt|claude[\w.-]*|openai|anthropic|bots?|adjudicat\w*)\b",
                         re.IGNORECASE)


def reserved_name_reason(name: str) -> str | None:
    """Why a typed reviewer name is reserved, or None when a person may use it."""
    n = (name or "").strip()
    if not n:
        return None
    if n[0] in _BRACKETS:  # "[adjudicated]", "(system)"; a note after a name, "Ben Okafor (NEPA reviewer)", is fine
        return "names in brackets, such as [adjudicated], are reserved for the app's own labels"
    if "/" in n or _JUDGE_LIKE.search(n) or n.casefold() in _model_names():
        return "names of judge models (and words such as judge, LLM, GPT) are reserved, so people and models stay apart"
    return None


def _model_names() -> set[str]:
    try:
        return {x.casefold() for p in registry.all_providers() for x in (p.id, *getattr(p, "aliases", ()))}
    except Exception:  # noqa: BLE001 - a broken model plugin must not stop people from labelling
        return set()


def check_reviewer_name(name: str) -> str:
    """The typed reviewer name, stripped; a UserError when it is empty or reserved."""
    n = (name or "").strip()
    if not n:
        raise UserError("Enter your name before labelling.")
    why = reserved_name_reason(n)
    if why:
        raise UserError(f"That name is reserved: {why}. Use your own name.")
    return n


def adjudicators() -> list[str]:
    """The identities allowed to set final labels (the NEPAQA_ADJUDICATORS setting), in the order listed."""
    raw = config.get(ADJUDICATORS_SETTING) or ""
    return list(dict.fromkeys(x.strip() for x in raw.split(",") if x.strip()))


def adjudicator_for(*identities: str | None) -> str | None:
    """The listed adjudicator matching any of these identities (a name or an e-mail; case does not matter)."""
    listed = {a.casefold(): a for a in adjudicators()}
    for who in identities:
        if who and who.strip().casefold() in listed:
            return listed[who.strip().casefold()]
    return None


def require_adjudicator(by: str | None) -> str:
    """The listed adjudicator ``by`` names; a UserError when adjudication is off or ``by`` is not listed."""
    if not adjudicators():
        raise UserError(HOW_TO_ADJUDICATE)
    found = adjudicator_for(by)
    if not found:
        raise UserError(f"Only the adjudicators listed in {ADJUDICATORS_SETTING} can set final labels, and "
                        f"this reviewer is not listed.")
    return found


def signed_in_reviewer(user: Mapping[str, object]) -> tuple[str, str | None]:
    """(the reviewer, the adjudicator or None) for a signed-in account: the e-mail names the reviewer (else the
    display name), and only the verified e-mail grants adjudication: a display name is often the user's own to set."""
    who = str(user.get("email") or user.get("name") or "").strip()
    email = user.get("email")
    return who, adjudicator_for(str(email)) if email else None


def check_import_rights(annotators: Iterable[str], importer: str | None, by: str | None, sign_in: bool) -> None:
    """Whose labels a reviewer may import. Without sign-in names are not authenticated, so a file may hold any
    names; with sign-in on, a reviewer imports only their own labels (``importer``: the signed-in reviewer, None
    when nobody is signed in), and an adjudicator (``by``) may import anyone's."""
    if not sign_in or adjudicator_for(by):
        return
    others = sorted(set(annotators) - {importer})
    if others or not importer:
        raise UserError("With sign-in on, you can import only your own labels (annotator "
                        f"'{importer or 'signed-in user'}'); this file also holds labels of "
                        f"{len(others)} other name(s). Ask an adjudicator to import it.")


def similar_expert(name: str, known: Sequence[str]) -> str | None:
    """A known name a newly typed one is probably meant to be (same letters ignoring case and spaces, or one or
    two typos away), so a typo does not create a second expert."""
    def squash(x: str) -> str:
        return "".join(x.casefold().split())

    for k in known:
        if squash(k) == squash(name) and k != name:
            return k
    close = difflib.get_close_matches(squash(name), [squash(k) for k in known], n=1, cutoff=0.85)
    if close and close[0] != squash(name):
        return next(k for k in known if squash(k) == close[0])
    return None
