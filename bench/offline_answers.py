"""How the offline models answer, compared between two benchmark runs (e.g. before and after a decoding change).

For each run, model and context mode: closed accuracy and the open-question score (each with n and a 95%
interval, never averaged together), seconds per answer, answer length, and the faults a reader sees at once:
a sentence repeated within an answer (looping), a quoted piece that is not a whole sentence of its context
(checked against the context text, not with the code that picks the sentences) or, for a generating model, an
answer that stops mid-sentence, and bullet or symbol-font glyphs.

    python -m lib bench --questions data/nepa/NEPAQuAD1_sample20.csv --models smollm2,extractive \\
        --modes none,rag,gold --run-id before
    ... change something ...
    python -m lib bench ... --run-id after
    python bench/offline_answers.py before after
"""
from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lib.evaluation.benchmark.runs import StoredAnswer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

_CITE = re.compile(r"\s*(\[\d+\]|\((?:pp?\. [\d–-]+)\))")
_GLYPH = re.compile(r"[\u2022\u25aa\u25a0\u25cf\u25e6\uf020-\uf0ff\ufffd]|(?:^|\s)[-–*]\t|(?:^|[.!?]\s)[-–*]\s")


def sentences(text: str) -> list[str]:
    from lib.core.sentences import split_sentences

    return split_sentences(_CITE.sub("", text or ""))


def loops(text: str) -> bool:
    """Some sentence (of 4 words or more) occurs twice in the answer."""
    seen = set()
    for s in sentences(text):
        key = " ".join(s.lower().split())
        if len(key.split()) >= 4 and key in seen:
            return True
        seen.add(key)
    return False


_QUOTE_END = re.compile(r"(?<=[.!?])(?:\s*\[\d+\])?(?:\s*\(pp?\. [\d–-]+\))?\s+(?=\S)|(?<=[.!?])(?:\s*\[\d+\])?"
                        r"(?:\s*\(pp?\. [\d–-]+\))?\s*$")
_NUMBERED_HEADING = r"(?:^|\s)(?:[A-Z]{1,3}[.-])?\d+(?:\.\d+)+\s+(?:(?:[A-Z][\w-]*|with|of|and|the|for|to|in|on)\s*)+"
_HEADING_START = re.compile(r"^(?:[A-Z]{1,3}[.-])?\d+(?:\.\d+)+\s+[A-Z]")


def _norm(text: str) -> str:
    """Spaces collapsed, line breaks kept (a new line may start a quoted sentence: after a heading, in a list)."""
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def spliced(text: str, context: str, closed: bool) -> bool:
    """An extractive answer that is not made of whole sentences of its context, checked against the context itself
    (independently of the code that picks the sentences): some quoted piece is not found in the context, or is
    found mid-sentence (the text before it does not end a sentence, a line or a list item), or does not end with a
    full stop, or begins with a numbered heading ("ES.1.6 Coordination … In addition …")."""
    body = re.sub(r"^Quotes only:\s*", "", text or "") if closed else (text or "")
    if not body or body.startswith("("):
        return False
    ctx = _norm(re.sub(r"[\u2022\uf020-\uf0ff]", "\n", context))
    quotes = re.split(r"\s*\[\d+\]\s*(?:\(pp?\. [\d–-]+\))?\s*|\s*\(pp?\. [\d–-]+\)\s*", body)
    # a quote without a citation (gold passages) may hold two sentences: check each where it stands
    pieces = [x for q in quotes for x in re.split(r"(?<=[.!?])\s+(?=[A-Z])", q)]
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        if not re.search(r"[.!?][\"”')\]]*$", piece) or _HEADING_START.match(piece):
            return True
        at = ctx.replace("\n", " ").find(" ".join(piece.split())[:60])
        if at < 0:
            return True
        before = ctx[:at].rstrip(" ")
        if before and not re.search(r"([.!?:][\"”')\]]*\s*(?:[-–*o]\s*)?|\n\s*(?:[-–*o]\s*)?|" + _NUMBERED_HEADING + ")$",
                                    before):
            return True
    return False


def cut_off(text: str) -> bool:
    """A generated answer that stops mid-sentence."""
    t = (text or "").strip()
    return bool(t) and len(t.split()) > 3 and not re.search(r"[.!?][\"”')\]]*$", t)


def _value(r: StoredAnswer, *metrics: str) -> float:
    """The value of the first of ``metrics`` the answer was scored on; 0 when it has none (a failed answer, or a
    score that gave no value, counts 0)."""
    m = next((r.metrics[name] for name in metrics if name in r.metrics), None)
    return m.value if m is not None and m.value is not None else 0.0


def main() -> None:
    from lib.core.stats import inference as stats
    from lib.evaluation.benchmark.runs import answers, load_run

    if len(sys.argv) < 2:
        sys.exit("usage: python bench/offline_answers.py RUN_ID [RUN_ID ...]")
    print(f"{'run':<10} {'model':<20} {'mode':<5} {'closed acc (n)':<16} {'open score* [95%] (n)':<28} "
          f"{'s/answer':>8} {'words':>6} {'loops':>6} {'spliced*':>9} {'glyphs':>6}")
    for run_id in sys.argv[1:]:
        items, _cfg = load_run(run_id)
        kind = {it.id: it.question_type for it in items}
        cells: dict[tuple[str, str], list[StoredAnswer]] = defaultdict(list)
        for r in answers(run_id):
            cells[(r.model, r.mode)].append(r)
        for (model, mode), rows in sorted(cells.items()):
            ok = [r for r in rows if r.status == "ok"]
            closed = [r for r in rows if kind.get(r.item_id) == "closed"]
            opened = [r for r in rows if kind.get(r.item_id) != "closed"]
            # a failed answer scores 0: failures stay in the denominator
            acc = [_value(r, "closed_accuracy") for r in closed]
            scores = [_value(r, "answer_correctness", "token_f1_proxy") for r in opened]
            ci = stats.mean_ci(scores)
            mean, (lo, hi) = (ci.mean, ci.ci95) if scores else (float("nan"), (float("nan"),) * 2)
            words = sum(len((r.answer or "").split()) for r in ok) / max(1, len(ok))
            secs = sum(r.seconds or 0 for r in ok) / max(1, len(ok))
            n_loop = sum(loops(r.answer) for r in ok)
            if model.endswith("extractive"):
                n_frag = sum(spliced(r.answer, "\n".join(c.text for c in r.contexts),
                                     kind.get(r.item_id) == "closed") for r in ok)
            else:
                n_frag = sum(cut_off(r.answer) for r in ok if kind.get(r.item_id) != "closed")
            n_glyph = sum(bool(_GLYPH.search(r.answer or "")) for r in ok)
            print(f"{run_id:<10} {model.split('/')[-1]:<20} {mode:<5} "
                  f"{sum(acc) / max(1, len(acc)):.2f} ({len(acc)}){'':<8} "
                  f"{mean:.3f} [{lo:.3f}, {hi:.3f}] ({len(scores)}){'':<2} "
                  f"{secs:>8.2f} {words:>6.0f} {n_loop:>3}/{len(ok):<2} {n_frag:>6}/{len(ok):<2} {n_glyph:>3}/{len(ok):<2}")


    print("* spliced: for the extractive baseline, answers with a quoted piece that is not a whole sentence of its "
          "context (checked against the context text); for SmolLM2, open answers that stop mid-sentence.")
    print("* open score: RAGAS answer correctness where the run had a judge, else the offline token-F1 proxy "
          "(not RAGAS); closed accuracy is exact yes/no. The two are never averaged.")


if __name__ == "__main__":
    main()
