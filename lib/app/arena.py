"""The Arena's use case: one expert's voting session on one arena. It remembers, for this session only, the pairs
voted on (latest last, so Undo takes back this session's last vote whatever other tabs did), a pair whose vote was
taken back (offered again first), when each pair first came on screen (the vote's time is counted from there),
the vote just cast (shown with the names revealed until the expert moves on), and the pair on screen (a key that
reaches the previous pair's buttons is refused). The page keeps one of these per arena and expert and draws it;
the votes themselves are stored by lib/review/arena.py."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from lib.review import arena

VOTE_WORDS = {"left": "A is better", "right": "B is better", "tie": "Tie", "both_bad": "Both are bad"}


class StaleKeyError(Exception):
    """A vote for a pair that is no longer on screen (a key pressed while the next pair was loading)."""


@dataclass
class LastVote:
    """The vote just cast, with the two systems named, until the expert moves on."""

    vote: str  # in words ("A is better")
    a: str  # the left system, named
    b: str
    pair_key: str
    question: str
    left: str  # the two answers as shown
    right: str
    seen: bool = False  # the expert moved on (Next pair)


@dataclass
class VotingSession:
    arena_id: str
    who: str
    voted: list[str] = field(default_factory=list)  # pair keys voted on in this session, latest last
    redo: str | None = None  # a pair whose vote was taken back: offered again first
    shown_at: dict[str, float] = field(default_factory=dict)  # pair key → when it first came on screen
    last: LastVote | None = None
    current: str | None = None  # the pair on screen
    engine: Engine | None = None  # the store (default: the configured one)

    def next_pair(self, snap: arena.Snapshot | None = None) -> arena.Pair | None:
        """The pair to vote on next (a pair whose vote was taken back comes first), or None when all are done."""
        return arena.next_pair(self.arena_id, self.who, self.engine, snap=snap, prefer=self.redo)

    def show(self, pair: arena.Pair, now: float) -> float:
        """``pair`` is on screen: it becomes the one keys vote on; returns when it first came on screen."""
        self.current = pair.pair_key
        return self.shown_at.setdefault(pair.pair_key, now)

    def cast(self, pair: arena.Pair, vote: str, reason: str, now: float, name: Callable[[str], str],
             snap: arena.Snapshot | None = None) -> None:
        """Store the expert's vote on ``pair``, timed from when it came on screen. Raises StaleKeyError when the pair
        is no longer the one on screen, and UserError when the store refuses the vote (nothing is remembered)."""
        if self.current != pair.pair_key:
            raise StaleKeyError(pair.pair_key)
        shown = self.shown_at.get(pair.pair_key, now)
        arena.cast_vote(self.arena_id, self.who, pair, vote, reason, now - shown, self.engine, snap=snap)
        self.voted.append(pair.pair_key)
        self.shown_at.pop(pair.pair_key, None)
        self.last = LastVote(VOTE_WORDS[vote], arena.system_label(*pair.left.system, name),
                             arena.system_label(*pair.right.system, name), pair.pair_key, pair.question,
                             pair.left.text, pair.right.text)

    def undo(self) -> str | None:
        """Take back the vote this session last cast that is still stored; the pair is offered again first and
        timed afresh. Returns the vote taken back, in words, or None when there was none."""
        self.last = None
        while self.voted:
            pk = self.voted.pop()
            undone = arena.take_back(self.arena_id, self.who, pk, self.engine)
            if undone:
                self.redo = pk
                self.shown_at.pop(pk, None)
                return VOTE_WORDS[undone.vote]
        return None


def system_name(key: str, model_name: Callable[[str], str]) -> str:
    """A system key ("model · mode", as ratings and CSVs name systems) in plain words."""
    model, mode = arena.parse_system_key(key)
    return arena.system_label(model, mode, model_name) if model else key
