"""Who may do what with labels, decided in lib (lib/review/reviewers.py, lib/core/access.py) rather than in the
Validate page: whose labels a reviewer may import with sign-in on, and who a signed-in account is."""
import pytest

from lib.core import access
from lib.core.access import AccessDeniedError, Actor, Role
from lib.review import annotations as ann
from lib.review import reviewers
from lib.storage.engine import get_engine

HEADER = "item_id,annotator,label,value\n"
ADA = Actor("ada@epa.gov", Role.EXPERT, signed_in=True)
BOB = Actor("bob@epa.gov", Role.ADJUDICATOR, signed_in=True)


def test_with_sign_in_a_reviewer_imports_only_their_own_labels():
    with access.acting_as(ADA):
        reviewers.check_import_rights(["ada@epa.gov"])  # their own: fine
        with pytest.raises(AccessDeniedError, match="only your own labels .*1 other name"):
            reviewers.check_import_rights(["ada@epa.gov", "Ben"])
    with access.acting_as(BOB):
        reviewers.check_import_rights(["ada@epa.gov", "Ben"])  # an adjudicator imports anyone's
    viewer = Actor("ada@epa.gov", Role.VIEWER, signed_in=True)
    with access.acting_as(viewer), pytest.raises(AccessDeniedError, match="expert role"):
        reviewers.check_import_rights(["ada@epa.gov"])  # a viewer labels nothing
    reviewers.check_import_rights(["Ben", "Cy"])  # sign-in off: names are not checked


def test_the_import_applies_the_rule_before_writing(tmp_path):
    engine = get_engine(f"sqlite:///{tmp_path / 'r.db'}")
    text = HEADER + "I1,ada@epa.gov,answer_correct,yes\nI1,Ben,answer_correct,no\n"
    with access.acting_as(ADA), pytest.raises(AccessDeniedError, match="only your own labels"):
        ann.import_labels_csv(text, engine)
    assert ann.labels(engine) == []
    with access.acting_as(BOB):
        assert ann.import_labels_csv(text, engine) == 2


def test_a_signed_in_account_is_its_email_and_labels_only_as_itself(tmp_path):
    assert reviewers.signed_in_reviewer({"email": "Bob@EPA.gov", "name": "Bob"}) == "bob@epa.gov"  # the account's id
    assert reviewers.signed_in_reviewer({"sub": "A1b2", "name": "Alice Smith"}) == "a1b2"  # never a name one sets
    engine = get_engine(f"sqlite:///{tmp_path / 'r.db'}")
    with access.acting_as(ADA):
        with pytest.raises(AccessDeniedError, match="only as yourself"):
            ann.save_label("I1", "Ben", "answer_correct", "yes", engine)
        ann.save_label("I1", "ada@epa.gov", "answer_correct", "yes", engine)
    assert [(lb.annotator, lb.value) for lb in ann.labels(engine)] == [("ada@epa.gov", "yes")]
