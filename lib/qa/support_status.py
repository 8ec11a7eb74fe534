"""The marks a support check gives a sentence (lib/qa/support.py), and their signs on the page."""

SUPPORTED = "supported"
PARTLY = "partly supported"
UNSUPPORTED = "unsupported"
NOT_CHECKED = "not checked"  # a claim the checker cannot decide (between its cuts, or a claim that something is absent)
NO_SOURCE = "no source to check"
NOT_JUDGED = "not judged"  # the judge checker's only: its reply gave this sentence no valid verdict (a failure)
NO_CLAIM = "no claim"  # a lead-in, a refusal or a remark about the sources: no mark, counted apart
NOTHING = "nothing to check"  # a verdict only: the answer states no claim of its own (a bare yes or no)
STATUSES = (SUPPORTED, PARTLY, UNSUPPORTED, NOT_CHECKED, NO_SOURCE, NOT_JUDGED, NO_CLAIM)
UNMARKED = (NO_SOURCE, NOT_JUDGED, NO_CLAIM)  # statuses that say nothing of the sentence's support

SIGNS = {SUPPORTED: "✓", PARTLY: "◐", UNSUPPORTED: "✗", NOT_CHECKED: "○", NO_SOURCE: "–", NOT_JUDGED: "?", NO_CLAIM: ""}
