"""The Validate use case: where an expert resumes a batch, and what one review saves. The rule that a review must
answer all three questions is annotations.save_review's; these are the rules the review panel applied itself."""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from lib.review import support_calibration

ALL_YES = {"type_correct": "yes", "answer_correct": "yes", "proof_supports": "yes"}


def resume_position(item_ids: Sequence[str], done: Collection[str]) -> int:
    """The first item of the batch this expert has not finished; the first item when every one is done."""
    return next((i for i, it in enumerate(item_ids) if it not in done), 0)


def review_values(draft: Mapping[str, str], comment: str | None = None, true_type: str | None = None) -> dict[str, str]:
    """What saving a draft writes: the comment and suggested type as last typed (when given), and a suggested type
    only while the claimed type is marked wrong (a type picked, then the answer changed to yes, is not kept)."""
    values = dict(draft)
    if comment is not None:
        values["comment"] = comment
    wrong_type = values.get("type_correct") == "no"
    values["true_type"] = (true_type or values.get("true_type", "") or "") if wrong_type else ""
    return values


def all_yes_values(draft: Mapping[str, str], comment: str | None = None) -> dict[str, str]:
    """'All yes': yes to the three questions, keeping the comment (as last typed, when given) and this draft's
    optional support label."""
    return {**ALL_YES, "true_type": "", "comment": draft.get("comment", "") if comment is None else comment,
            support_calibration.LABEL: draft.get(support_calibration.LABEL, "")}
