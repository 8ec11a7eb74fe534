"""The support classifier: two logistic regressions over a claim's signals (``support_signals.SIGNALS``), fitted on
the train split of the labelled set (data/support/, ``bench/support.py --fit``), and the cuts between the marks,
chosen on its dev split by the rule stated in ``RULES``. The fitted numbers live in ``support_model.json`` beside
this file, with the test split's figures for each mark (what the legend and hover say).

- ``full``: the chance that everything the sentence says is in its sources;
- ``any``: the chance that at least part of it is.

A claim is ✓ when ``full`` reaches the ✓ cut and no number, date, name or negation differs from its evidence; ◐
when ``any`` reaches the ◐ cut; ✗ when ``any`` is under the ✗ cut; and "not checked" in between, where the
classifier cannot tell.
"""
from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lib.qa.support_signals import SIGNALS

MODEL_FILE = Path(__file__).with_name("support_model.json")
RULES = {
    "supported": "the lowest cut on 'full' whose ✓ marks on the dev split are right at least 90% of the time",
    "partly": "the lowest cut on 'any' whose ◐ marks on the dev split hold at least part of the sentence at least 90% of the time",
    "unsupported": ("the highest cut on 'any' whose ✗ marks on the dev split are labelled unsupported (nothing of "
                    "it in the passage) at least 90% of the time"),
}


@dataclass(frozen=True)
class Model:
    means: tuple[float, ...]
    scales: tuple[float, ...]
    full: tuple[float, ...]  # intercept first, then one weight per signal (standardised)
    any: tuple[float, ...]
    cuts: dict[str, float]
    measured: dict  # per mark, on the test split: {"supported": {"precision": .., "n": .., "lo": .., "hi": ..}, …}
    fitted: dict  # what it was fitted on: rows per split, date, version of the data

    def _p(self, weights: tuple[float, ...], signals: dict[str, float]) -> float:
        z = weights[0] + sum(w * (signals[name] - m) / s for w, name, m, s in
                             zip(weights[1:], SIGNALS, self.means, self.scales, strict=True))
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    def chances(self, signals: dict[str, float]) -> tuple[float, float]:
        """(full, any) for a claim's signals."""
        return self._p(self.full, signals), self._p(self.any, signals)


@functools.lru_cache(maxsize=1)
def load() -> Model | None:
    """The fitted model, or None where none has been fitted (the check then says "not checked" for every claim)."""
    if not MODEL_FILE.exists():
        return None
    d = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    if tuple(d.get("signals", ())) != SIGNALS:
        return None  # fitted on other signals: refit with bench/support.py --fit
    return Model(tuple(d["means"]), tuple(d["scales"]), tuple(d["full"]), tuple(d["any"]), dict(d["cuts"]),
                 dict(d.get("measured", {})), dict(d.get("fitted", {})))


@dataclass(frozen=True)
class MarkFigure:
    """How often one mark was right against the experts: the share (None with n = 0), n and its 95% interval."""

    value: float | None
    n: int
    lo: float | None
    hi: float | None


def trust_line(status: str, experts: Mapping[str, MarkFigure] | None = None) -> str:
    """How far a mark can be trusted, in words: on the test split ("a ✓ was right 93% (n = 194, 95% CI 88%–96%)
    on held-out EIS answers") and, given ``experts`` (``support_calibration.expert_mark_figures``), against the
    experts' labels; "" where nothing was measured."""
    model = load()
    m = (model.measured if model else {}).get(status)
    out = ""
    if m and m.get("n") and m.get("value") is not None:
        what = {"supported": "a ✓ was right", "unsupported": "✗ caught", "partly supported": "a ◐ held part of it",
                "not checked": "left unchecked"}.get(status, status)
        of = {"unsupported": " of the unsupported sentences", "not checked": " of the claims"}.get(status, "")
        out = (f"{what} {m['value']:.0%}{of} (n = {m['n']}, 95% CI {m['lo']:.0%}–{m['hi']:.0%}) on held-out EIS "
               "answers")
    got = (experts or {}).get(status)
    if got and got.n and got.value is not None and got.lo is not None and got.hi is not None:
        what = "an all-✓ answer was supported" if status == "supported" else "✗ caught the unsupported answers"
        out += ("; " if out else "") + (f"against the experts, {what} {got.value:.0%} of the time (n = "
                                        f"{got.n}, 95% CI {got.lo:.0%}–{got.hi:.0%})")
    return out


_MEANS = {"supported": "✓ supported: everything it says is in its sources",
          "partly supported": "◐ partly supported: some of it is (never ✓ where a number, date, name or 'not' differs)",
          "unsupported": "✗ unsupported: its sources do not say it, or contradict it (another number, a 'not')",
          "not checked": "○ not checked: the check cannot tell either way"}


def legend(experts: Mapping[str, MarkFigure] | None = None) -> list[str]:
    """One line per mark: what it means and how far it can be trusted (held-out EIS answers; and, given
    ``experts`` (``support_calibration.expert_mark_figures``), against the experts' labels)."""
    out = []
    for status, meaning in _MEANS.items():
        trust = trust_line(status, experts)
        out.append(f"{meaning} — {trust}" if trust else meaning)
    out.append("No mark: the sentence makes no claim (a lead-in, a refusal, a remark about the sources).")
    model = load()
    if model:
        c = model.cuts
        out.append(f"The cuts, chosen on labelled dev data: ✓ where the chance that all of it is supported is at least "
                   f"{c['supported']:.2f} (✓ right ≥ 90% there); ◐ where the chance that part of it is reaches "
                   f"{c['partly']:.2f} (≥ 90% hold part); ✗ below {c['unsupported']:.2f} (≥ 90% unsupported); "
                   "○ between.")
    return out
