"""NEPA QA Studio: everything the pages and the command line share, as layered packages (docs/architecture.md: module map).

Nothing in this package imports Streamlit.
"""
import os

# Nothing may reach a model hub: these are set before any Hugging Face import.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

from lib.core.version import __version__  # noqa: E402 - after the environment above

__all__ = ["__version__"]
