"""Who reviews, and what each reviewer may do: the names a person may not type, who may set final labels
(adjudicate: a role, lib/core/access.py), and whose labels a reviewer may import. The pages and the command line
ask these same rules."""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence

from lib.core import access
from lib.core.access import Action
from lib.core.errors import UserError
from lib.models import registry

ADJUDICATOR = "[adjudicated]"  # the annotator name under which final labels are stored; never typed by a person
HOW_TO_ADJUDICATE = ("Setting final labels needs the adjudicator role (or admin). Ask an admin of this app to give "
                     "it to you (Accounts page).")

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


def may_adjudicate() -> bool:
    """Whether the person acting may set final labels (the page asks, to show the Adjudicate tab)."""
    return access.allowed(Action.ADJUDICATE)


def signed_in_reviewer(user: Mapping[str, object]) -> str:
    """The reviewer for a signed-in account: its id as the sign-in gate has it (the e-mail in lower case, else the
    provider's subject), so labels and votes carry the account that made them."""
    return str(user.get("email") or user.get("sub") or "").strip().lower()


def check_import_rights(annotators: Iterable[str]) -> None:
    """Whose labels the person acting may import: with sign-in on, only their own unless they may adjudicate;
    without it names are not authenticated, so a file may hold any names."""
    who = access.authorize(Action.LABEL, "import labels")
    if not who.signed_in or may_adjudicate():
        return
    others = sorted({a for a in annotators if a.strip().casefold() != who.id.casefold()})
    if others:
        raise access.AccessDeniedError(f"You can import only your own labels (annotator '{who.id}'); this file also holds "
                                  f"labels of {len(others)} other name(s). Ask an adjudicator to import it.")


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
