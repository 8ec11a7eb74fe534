"""Review by NEPA experts: items queued for review, their labels and adjudication (``annotations``), who may do
what (``reviewers``), labels files (``labels_csv``), a judge model labelling the same items (``judge_review``), and
the support checkers calibrated against the experts (``support_calibration``), the blind arena of answer pairs (``arena``, its votes as CSV in ``arena_csv``, a judge's votes in ``arena_judge``).
The statistics over labels and votes are in lib/core/stats."""
from lib.review import (
    annotations,
    arena,
    arena_csv,
    arena_judge,
    arena_support,
    judge_review,
    labels_csv,
    reviewers,
    support_calibration,
)
from lib.review.labels_csv import LabelsCSVError, decode_csv_bytes, read_labels_csv
from lib.review.reviewers import (
    ADJUDICATOR,
    HOW_TO_ADJUDICATE,
    check_import_rights,
    check_reviewer_name,
    may_adjudicate,
    reserved_name_reason,
    signed_in_reviewer,
    similar_expert,
)

__all__ = ["ADJUDICATOR", "HOW_TO_ADJUDICATE", "LabelsCSVError", "annotations", "arena",
           "arena_csv", "arena_judge", "arena_support", "check_import_rights", "check_reviewer_name",
           "decode_csv_bytes", "judge_review", "labels_csv", "may_adjudicate", "read_labels_csv",
           "reserved_name_reason", "reviewers", "signed_in_reviewer", "similar_expert", "support_calibration"]
