"""The Validate use case (lib/app/validate.py), without Streamlit: where a review resumes and what one saves."""
from lib.app import validate
from lib.review import support_calibration


def test_a_batch_resumes_at_the_first_item_not_finished():
    assert validate.resume_position(["a", "b", "c"], {"a"}) == 1
    assert validate.resume_position(["a", "b", "c"], {"a", "c"}) == 1
    assert validate.resume_position(["a", "b", "c"], set()) == 0
    assert validate.resume_position(["a", "b", "c"], {"a", "b", "c"}) == 0  # all done: back to the first


def test_a_suggested_type_is_saved_only_while_the_claimed_type_is_marked_wrong():
    draft = {"type_correct": "no", "answer_correct": "yes", "proof_supports": "yes", "true_type": "closed",
             "comment": "old"}
    # the comment and type as last typed win over the draft's (they reach the draft only when the panel reruns)
    assert validate.review_values(draft, "typed just now", "comparison") == {
        "type_correct": "no", "answer_correct": "yes", "proof_supports": "yes", "true_type": "comparison",
        "comment": "typed just now"}
    assert validate.review_values(draft)["true_type"] == "closed"
    assert validate.review_values(draft)["comment"] == "old"  # nothing typed since: the draft's comment is saved
    assert validate.review_values(draft, None, "")["true_type"] == "closed"  # an empty pick keeps the draft's
    changed = {**draft, "type_correct": "yes"}  # type picked, then the claimed type said right after all
    assert validate.review_values(changed, None, "comparison")["true_type"] == ""
    assert draft["true_type"] == "closed"  # the draft itself is not changed


def test_all_yes_keeps_the_comment_and_support_label():
    draft = {"type_correct": "no", "true_type": "closed", "comment": "c", support_calibration.LABEL: "no"}
    assert validate.all_yes_values(draft) == {
        "type_correct": "yes", "answer_correct": "yes", "proof_supports": "yes", "true_type": "", "comment": "c",
        support_calibration.LABEL: "no"}
    assert validate.all_yes_values({}, "typed")["comment"] == "typed"
    assert validate.all_yes_values({})[support_calibration.LABEL] == ""
