"""Keep keys out of logs, errors, result files and pages."""
from __future__ import annotations

import logging
import os
import re
from typing import Any

from lib.core import config

SECRET_NAMES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPAT_API_KEY")
# Key shapes (sk-…, sk-ant-…) only where they start a token, so "risk-assessment" or "task-specific" in EIS
# text is left alone. Configured keys are redacted by value in any case.
_KEY_PATTERNS = [re.compile(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_\-]{8,}"),
                 re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-]{16,}")]
# An Authorization header echoed back, credentials inside a URL, and key-like query parameters.
_CONTEXT_PATTERNS = [
    # (a value must hold a digit, so EIS prose such as "Mitigation key: wetlands" is left alone)
    (re.compile(r"(?i)\b(bearer|basic)\s+(?=[A-Za-z._~+/=\-]*\d)(?=[0-9._~+/=\-]*[A-Za-z])[A-Za-z0-9._~+/=\-]{12,}"),
     r"\1 ***"),
    (re.compile(r"(?i)\b(x-api-key|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret[_-]?key)"
                r"([\"']?\s*[:=]\s*[\"']?)(?=[A-Za-z._~+/\-]*\d)[A-Za-z0-9._~+/\-]{16,}"), r"\1\2***"),
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://)[^/\s:@]+:[^/\s@]+@"), r"\1***@"),
]


def known_secrets() -> list[str]:
    vals = {config.get(n) or "" for n in SECRET_NAMES} | {os.environ.get(n, "") for n in SECRET_NAMES}
    return sorted((v for v in vals if len(v) >= 6), key=len, reverse=True)


def redact(text: str, extra: list[str] | None = None) -> str:
    for secret in [*(extra or []), *known_secrets()]:
        if secret:
            text = text.replace(secret, "***")
    for pat in _KEY_PATTERNS:
        text = pat.sub("***", text)
    for pat, repl in _CONTEXT_PATTERNS:
        text = pat.sub(repl, text)
    return text


_installed = False


def install_log_redaction() -> None:
    """Redact every log record this process creates, whichever logger or handler it goes to."""
    global _installed
    if _installed:
        return
    base_factory = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:  # LogRecord's own signature
        record = base_factory(*args, **kwargs)
        try:
            msg = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed log call must not break the app
            return record
        clean = redact(msg)
        if clean != msg:
            record.msg, record.args = clean, None
        return record

    logging.setLogRecordFactory(factory)
    _installed = True
