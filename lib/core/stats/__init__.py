"""Statistics, every one the app reports: means with bootstrap (or Wilson) intervals and paired tests
(``inference``), agreement among experts on labels and on arena votes (``agreement``), and Bradley–Terry ratings
of arena systems (``bradley_terry``). Pure functions over plain values; the heavy libraries load on first use."""
from lib.core.stats.agreement import (
    CohenPair,
    Label,
    LabelAgreement,
    PairAgreement,
    TwoRaters,
    agreement_report,
    alpha_band,
    cli_report,
    cohen_pairs,
    fleiss,
    kappa_band,
    kripp_alpha,
    pair_agreement,
    percent_agreement,
)
from lib.core.stats.bradley_terry import (
    ELO_SCALE,
    MIN_VOTES,
    VOTES,
    PositionBias,
    Rating,
    Ratings,
    Vote,
    WinRate,
    left_share_ci,
    ratings,
    too_few_votes,
    win_matrix,
)
from lib.core.stats.inference import (
    MIN_N,
    Binomial,
    Majority,
    McNemar,
    MeanCI,
    PairedBootstrap,
    mcnemar_test,
    mean_ci,
    paired_bootstrap,
    small_sample,
    wilson_interval,
)

__all__ = ["ELO_SCALE", "MIN_N", "MIN_VOTES", "VOTES", "Binomial", "CohenPair", "Label", "LabelAgreement", "Majority", "McNemar", "MeanCI", "PairAgreement", "PairedBootstrap",
           "PositionBias", "Rating", "Ratings", "TwoRaters", "Vote", "WinRate", "agreement_report", "alpha_band", "cli_report",
           "cohen_pairs", "fleiss", "kappa_band", "kripp_alpha", "left_share_ci", "mcnemar_test", "mean_ci",
           "pair_agreement", "paired_bootstrap", "percent_agreement", "ratings", "small_sample", "too_few_votes",
           "wilson_interval", "win_matrix"]
