"""``python -m lib``: the same operations as the pages, printing JSON on stdout. One module per command group
(documents, jobs, answers, benchmark, review), each registering its commands and their flags; ``main`` runs one."""
from lib.app.cli.entry import build_parser, main

__all__ = ["build_parser", "main"]
