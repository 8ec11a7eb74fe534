"""Messages on screen: an error's text shows as written, with a command in backticks as code (not its backticks),
and nothing in it becomes a link, image or emphasis. Rendered by a CommonMark parser (markdown-it, as rich ships)."""
from markdown_it import MarkdownIt

from pages._ui import said


def html(text: str) -> str:
    return MarkdownIt("commonmark").renderInline(said(text))


def test_a_command_in_backticks_is_code_and_the_rest_is_text():
    out = html("The index needs repair: run `python -m lib check --fix`, then reload.")
    assert out == "The index needs repair: run <code>python -m lib check --fix</code>, then reload."


def test_untrusted_parts_stay_text_and_a_lone_backtick_is_kept():
    out = html("'a_[b](http://evil.example)*c*.pdf' is not a PDF; it's `x")
    assert "<a" not in out and "<em>" not in out and "<code>" not in out
    assert out.replace("&quot;", '"').replace("&#x27;", "'") == "'a_[b](http://evil.example)*c*.pdf' is not a PDF; it's `x"
