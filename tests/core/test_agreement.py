"""Agreement statistics against published worked examples."""
import pytest

from lib.core.errors import UserError
from lib.core.stats.agreement import Label, agreement_report, alpha_band, kappa_band
from lib.review.labels_csv import read_labels_csv


def labels_from_counts(rows):
    """Fleiss-style count rows (per subject, per category) to per-rater labels."""
    out = []
    for s, counts in enumerate(rows):
        rater = 0
        for cat, n in enumerate(counts):
            for _ in range(n):
                out.append(Label(f"s{s}", f"r{rater}", "x", f"c{cat}"))
                rater += 1
    return out


def test_fleiss_wikipedia_example():
    rows = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    rep = agreement_report(labels_from_counts(rows))["x"]
    assert rep.fleiss_kappa == pytest.approx(0.210, abs=5e-4)
    assert rep.n_items == 10 and rep.n_annotators == 14


def pairs_to_labels(yy, yn, ny, nn):
    out, i = [], 0
    for (a, b), n in ((("yes", "yes"), yy), (("yes", "no"), yn), (("no", "yes"), ny), (("no", "no"), nn)):
        for _ in range(n):
            out += [Label(f"i{i}", "A", "x", a), Label(f"i{i}", "B", "x", b)]
            i += 1
    return out


@pytest.mark.parametrize("cells, kappa", [((20, 5, 10, 15), 0.4), ((45, 15, 25, 15), 0.1304)])
def test_cohen_wikipedia_examples(cells, kappa):
    rep = agreement_report(pairs_to_labels(*cells))["x"]
    assert rep.cohen_kappa == pytest.approx(kappa, abs=1e-4)
    pair = rep.cohen_pairs["A × B"]
    yy, yn, ny, nn = cells
    assert pair.confusion == [[nn, ny], [yn, yy]]  # categories sorted: no, yes
    assert rep.percent_agreement == pytest.approx((yy + nn) / sum(cells))
    assert rep.fleiss_kappa is None  # two raters: Cohen's kappa is the statistic


def test_krippendorff_reference_with_missing_data():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders, 12 units, nominal α = 0.743.
    data = {
        "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    }
    labels = [Label(f"u{u:02d}", coder, "x", str(v)) for coder, vals in data.items() for u, v in enumerate(vals)
              if v is not None]
    rep = agreement_report(labels)["x"]
    assert rep.krippendorff_alpha == pytest.approx(0.743, abs=5e-4)
    assert rep.alpha_band == "tentative"


def test_either_and_all_rules():
    labels = [Label("1", "A", "ok", "yes"), Label("1", "B", "ok", "yes"),
              Label("2", "A", "ok", "yes"), Label("2", "B", "ok", "no"),
              Label("3", "A", "ok", "no"), Label("3", "B", "ok", "no"),
              Label("4", "A", "ok", "no")]
    rep = agreement_report(labels)["ok"]
    assert rep.either_rule == 0.5 and rep.all_rule == 0.25
    # four items labelled, three of them by both experts: agreement's n is 3, as the pair's matrix counts
    assert (rep.n_items, rep.n_shared, rep.cohen_pairs["A × B"].n) == (4, 3, 3)


def test_bands():
    assert kappa_band(0.1304) == "slight" and kappa_band(0.4) == "fair" and kappa_band(0.9) == "almost perfect"
    assert alpha_band(0.85) == "reliable" and alpha_band(0.7) == "tentative" and alpha_band(0.5) == "unreliable"


def test_read_labels_csv_errors():
    assert len(read_labels_csv("item_id,annotator,label,value\n1,A,x,Yes\n")) == 1
    with pytest.raises(UserError, match="columns"):
        read_labels_csv("item,who,label,value\n1,A,x,yes\n")
    with pytest.raises(UserError, match="line 3, column .value.: empty"):
        read_labels_csv("item_id,annotator,label,value\n1,A,x,yes\n2,A,x,\n")
    with pytest.raises(UserError, match="twice"):
        read_labels_csv("item_id,annotator,label,value\n1,A,x,yes\n1,A,x,no\n")


def test_cli_agreement(tmp_path):
    import json
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    rows = ["item_id,annotator,label,value"] + [
        f"i{i},{who},answer_correct,{v}" for i, (a, b) in enumerate([("yes", "yes"), ("yes", "no"), ("no", "no"), ("yes", "yes")])
        for who, v in (("A", a), ("B", b))]
    good = tmp_path / "labels.csv"
    good.write_text("\n".join(rows) + "\n")
    out = subprocess.run([sys.executable, "-m", "lib", "agreement", str(good)], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, "NEPAQA_HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)["answer_correct"]
    assert set(rep) == {"n_items", "n_shared", "n_annotators", "percent_agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha",
                        "either_rule", "all_rule"}
    assert rep["n_items"] == 4 and rep["n_shared"] == 4 and rep["n_annotators"] == 2 and rep["percent_agreement"] == 0.75 and rep["either_rule"] == 0.75
    assert rep["cohen_kappa"] == pytest.approx(0.5)
    bad = tmp_path / "bad.csv"
    bad.write_text("who,what\n1,2\n")
    out = subprocess.run([sys.executable, "-m", "lib", "agreement", str(bad)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.startswith("error: ")


# ---- issue 10: encodings, text kept as written, our own safe CSV read back ---------------------------------------

from lib.review.labels_csv import decode_csv_bytes  # noqa: E402

CSV = "item_id,annotator,label,value\r\ni1,Zoë,answer_correct,YES\r\ni1,Zoë,comment,\"Café; see Table ES-3\"\r\n"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le-bom", "utf-16-be-bom"])
def test_decode_reads_utf8_and_utf16_by_bom(encoding):
    data = {"utf-16-le-bom": b"\xff\xfe" + CSV.encode("utf-16-le"),
            "utf-16-be-bom": b"\xfe\xff" + CSV.encode("utf-16-be")}.get(encoding) or CSV.encode(encoding)
    text = decode_csv_bytes(data, "labels.csv")
    assert text == CSV and not text.startswith("\ufeff")
    assert read_labels_csv(text) == [Label("i1", "Zoë", "answer_correct", "yes"),
                                     Label("i1", "Zoë", "comment", "Café; see Table ES-3")]


@pytest.mark.parametrize("data, words", [
    (CSV.encode("latin-1"), ["not UTF-8", "save it as UTF-8"]),
    (CSV.encode("cp1252"), ["not UTF-8", "save it as UTF-8"]),
    (CSV.encode("utf-16-le"), ["UTF-16", "byte-order mark", "save it as UTF-8"]),
    (b"\xff\xfe\x00\x00" + CSV.encode("utf-32-le"), ["UTF-32", "save it as UTF-8"]),
    (b"\xff\xfe" + b"i\x00\x00\xd8", ["UTF-16", "save it as UTF-8"]),  # a broken UTF-16 file
])
def test_decode_refuses_other_encodings_by_name(data, words):
    with pytest.raises(UserError) as exc:
        decode_csv_bytes(data, "labels.csv")
    msg = str(exc.value)
    assert all(w in msg for w in words), msg
    assert "labels.csv" in msg and "new-line" not in msg and "\ufffd" not in msg


def test_utf16_and_old_mac_line_ends_get_no_newline_message():
    text = decode_csv_bytes(CSV.replace("\r\n", "\r").encode("utf-16"), "mac.csv")
    assert len(read_labels_csv(text)) == 2


def test_read_labels_csv_keeps_text_and_reads_our_escapes():
    text = ("item_id,annotator,label,value\n'+cmd|' /C calc'!A0,Alice,comment,\"'=HYPERLINK(\"\"http://x\"\",\"\"Click\"\")\"\n"
            "i3,Alice,comment,''=kept one\n"
            "i4,Alice,answer_correct,Unsure\ni5,Alice,x,Maybe\n")
    got = read_labels_csv(text)
    assert got[0] == Label("+cmd|' /C calc'!A0", "Alice", "comment", '=HYPERLINK("http://x","Click")')
    assert got[1].value == "'=kept one" and got[2].value == "unsure" and got[3].value == "Maybe"


def test_read_labels_csv_reports_every_bad_row():
    from lib.review.labels_csv import LabelsCSVError

    text = ("item_id,annotator,label,value\n1,A,x,yes\n2,A,x,\n,A,x,no\n1,A,x,no\n"
            "i2,A,comment,Proof on Page 12 says 1,200 Acres\n")
    with pytest.raises(LabelsCSVError) as exc:
        read_labels_csv(text)
    assert [(p.row, p.column) for p in exc.value.problems] == [(3, "value"), (4, "item_id"), (5, "item_id"),
                                                                (6, "value")]
    assert "quote" in exc.value.problems[-1].reason
    assert "line 3" in str(exc.value) and "twice" in exc.value.problems[2].reason


def test_the_kappa_interval_holds_kappa_and_is_none_where_it_cannot_be_made():
    from sklearn.metrics import cohen_kappa_score

    from lib.core.stats.agreement import kappa_interval

    a = ["yes"] * 20 + ["no"] * 20
    b = ["yes"] * 16 + ["no"] * 4 + ["no"] * 15 + ["yes"] * 5
    lo, hi = kappa_interval(a, b)
    k = cohen_kappa_score(a, b)
    assert lo < k < hi and lo >= -1 and hi <= 1 and hi - lo < 0.7
    assert kappa_interval(a, b) == [lo, hi]  # seeded: the same interval every time
    assert kappa_interval(["yes"], ["yes"]) is None
    assert kappa_interval(["yes"] * 5, ["yes"] * 5) is None  # one category only: κ undefined in every resample
