import pytest

from lib.verdict import looks_closed, parse_verdict

TABLE = [
    ("Yes", "yes"),
    ("yes.", "yes"),
    ("Yes, the USFWS took part.", "yes"),
    ("**Yes** - according to section 2", "yes"),
    ("Answer: Yes", "yes"),
    ("Correct, it was.", "yes"),
    ("That is true.", "yes"),
    ("True", "yes"),
    ("Indeed, the site was evaluated.", "yes"),
    ("No", "no"),
    ("No, the site was not selected.", "no"),
    ("no.", "no"),
    ("Incorrect.", "no"),
    ("That is incorrect.", "no"),
    ("This is not true.", "no"),
    ("Not true; the EIS says otherwise.", "no"),
    ("False", "no"),
    ("The statement is false.", "no"),
    ("It is not correct that the Army prepared it.", "no"),
    ("The agency did not consult the tribe.", "no"),
    ("Nope", "no"),
    ("The excerpt does not say.", "unclear"),
    ("I cannot determine this from the passage.", "unclear"),
    ("There is not enough information to answer.", "unclear"),
    ("", "unclear"),
    ("Maybe", "unclear"),
    ("Based on the document, yes, the agency did.", "yes"),
    ("Based on the excerpt, no.", "no"),
]


@pytest.mark.parametrize("text, expected", TABLE)
def test_parse_verdict(text, expected):
    assert parse_verdict(text) == expected


def test_incorrect_is_never_yes():
    for text in ("incorrect", "Incorrect!", "that's incorrect", "INCORRECT."):
        assert parse_verdict(text) == "no"


@pytest.mark.parametrize(
    "q, closed",
    [
        ("Did the U.S. Fish and Wildlife Service participate?", True),
        ("Is the site in Ohio?", True),
        ("What alternatives were considered?", False),
        ("How does the proposed action affect wetlands?", False),
        ("Is the site in Ohio or in Michigan?", False),
    ],
)
def test_looks_closed(q, closed):
    assert looks_closed(q) is closed
