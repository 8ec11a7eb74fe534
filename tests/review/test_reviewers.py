"""Who may do what, decided in lib (lib/review/reviewers.py) rather than in the Validate page: whose labels a
reviewer may import with sign-in on, and who a signed-in account is."""
import pytest

from lib.core import UserError
from lib.review import annotations as ann
from lib.review import reviewers
from lib.storage.engine import get_engine

HEADER = "item_id,annotator,label,value\n"


@pytest.fixture
def listed(monkeypatch):
    monkeypatch.setenv("NEPAQA_ADJUDICATORS", "Alice Smith, bob@epa.gov")


def test_with_sign_in_a_reviewer_imports_only_their_own_labels(listed):
    reviewers.check_import_rights(["ada@epa.gov"], "ada@epa.gov", None, sign_in=True)  # their own: fine
    with pytest.raises(UserError, match="only your own labels .*1 other name"):
        reviewers.check_import_rights(["ada@epa.gov", "Ben"], "ada@epa.gov", None, sign_in=True)
    with pytest.raises(UserError, match="signed-in user"):
        reviewers.check_import_rights(["Ben"], None, None, sign_in=True)  # nobody signed in
    reviewers.check_import_rights(["ada@epa.gov", "Ben"], "bob@epa.gov", "bob@epa.gov", sign_in=True)  # adjudicator
    reviewers.check_import_rights(["Ben", "Cy"], None, None, sign_in=False)  # no sign-in: names are not checked


def test_the_import_applies_the_rule_before_writing(listed, tmp_path):
    engine = get_engine(f"sqlite:///{tmp_path / 'r.db'}")
    text = HEADER + "I1,ada@epa.gov,answer_correct,yes\nI1,Ben,answer_correct,no\n"
    with pytest.raises(UserError, match="only your own labels"):
        ann.import_labels_csv(text, engine, importer="ada@epa.gov", sign_in=True)
    assert ann.labels(engine) == []
    assert ann.import_labels_csv(text, engine, by="bob@epa.gov", importer="bob@epa.gov", sign_in=True) == 2


def test_a_signed_in_account_adjudicates_only_by_its_verified_email(listed):
    assert reviewers.signed_in_reviewer({"email": "bob@epa.gov", "name": "Bob"}) == ("bob@epa.gov", "bob@epa.gov")
    assert reviewers.signed_in_reviewer({"name": "Alice Smith"}) == ("Alice Smith", None)  # a name one sets oneself
    assert reviewers.signed_in_reviewer({"email": "eve@x.org", "name": "Alice Smith"}) == ("eve@x.org", None)
