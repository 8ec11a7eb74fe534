"""Review statistics from exported CSVs: arena ratings and agreement among labellers."""
from __future__ import annotations

import argparse

from lib.app.cli.common import (
    command,
)
from lib.core.stats.agreement import cli_report
from lib.core.stats.bradley_terry import ratings
from lib.core.textfile import read_text
from lib.review.arena_csv import read_votes_csv
from lib.review.labels_csv import read_labels_csv


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("arena-ratings", help="Bradley-Terry ratings with bootstrap intervals from pairwise votes (CSV)")
    s.add_argument("votes_csv", help="columns left_model, right_model, vote (left|right|tie|both_bad); optional "
                                     "annotator, item_id")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")

    s = sub.add_parser("agreement", help="agreement statistics from long-format labels")
    s.add_argument("labels_csv")


@command("arena-ratings")
def _arena_ratings(a: argparse.Namespace) -> object:
    return ratings(read_votes_csv(read_text(a.votes_csv, "votes file")), seed=a.seed, n_bootstrap=a.bootstrap).as_dict()


@command("agreement")
def _agreement(a: argparse.Namespace) -> object:
    return cli_report(read_labels_csv(read_text(a.labels_csv, "labels file")))

