"""Core: small helpers every layer shares, with no storage: settings, the user-error type, the one tokenizer,
yes/no verdicts, text files and CSV safety, key redaction, progress types and a bounded task pool. The statistics
are in ``lib.core.stats``."""
from lib.core import access, config, csv_safe
from lib.core.errors import UserError
from lib.core.pool import run_tasks
from lib.core.progress import CountProgressFn, FractionProgressFn, ProgressFn
from lib.core.redaction import redact
from lib.core.text import clip, mend, readable_name, short_title, short_titles, tokenize, told_apart, without_notes
from lib.core.textfile import decode_text, read_text
from lib.core.verdict import NO, QUOTES_ONLY, UNCLEAR, YES, looks_closed, parse_verdict
from lib.core.version import __version__

__all__ = ["clip", "NO", "QUOTES_ONLY", "UNCLEAR", "YES", "CountProgressFn", "FractionProgressFn", "ProgressFn", "UserError", "__version__", "access",
           "config", "csv_safe", "decode_text", "looks_closed", "parse_verdict", "mend", "read_text", "readable_name", "redact",
           "run_tasks", "short_title", "short_titles", "told_apart", "tokenize", "without_notes"]
