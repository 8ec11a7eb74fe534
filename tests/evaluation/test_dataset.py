import json

import pytest

from lib.core import config
from lib.core.errors import UserError
from lib.evaluation.benchmark.dataset import QUESTION_TYPES, load_items

HEADER = "ID,EIS_filename,question_type,question,groundtruth_answer,context,page_number,position\n"


def test_sample_sets_import_cleanly():
    items, problems = load_items(config.SAMPLE20)
    assert len(items) == 20 and problems == []
    assert {it.question_type for it in items} == set(QUESTION_TYPES)
    assert all(it.answer in ("yes", "no") for it in items if it.question_type == "closed")
    full, problems = load_items(config.SAMPLE_QUESTIONS)
    assert len(full) == 155 and not problems
    assert all(it.page_number and it.position in ("beginning", "middle", "end") for it in full)


def test_malformed_rows_are_reported_and_left_out():
    csv_text = HEADER + "\n".join([
        'A1,doc,closed,Is it?,YES,ctx,3,beginning',
        'A2,doc,closed,Is it?,maybe,ctx,3,beginning',
        'A3,doc,riddle,What?,x,ctx,,',
        'A4,doc,recall,,answer,ctx,,',
        'A5,doc,Problem-Solving,How?,answer,ctx,seven,',
        'A6,doc,recall,What?,answer,ctx,,somewhere',
        'A1,doc,recall,What?,answer,ctx,,',
        'A8,doc,recall,What?,answer,ctx,12,end',
    ])
    items, problems = load_items(csv_text.encode(), "csv")
    assert [it.id for it in items] == ["A1", "A8"]
    assert items[0].answer == "yes"
    got = {(p.row, p.column) for p in problems}
    assert got == {(2, "groundtruth_answer"), (3, "question_type"), (4, "question"), (5, "page_number"),
                   (6, "position"), (7, "ID")}
    assert "row 3, column 'question_type'" in str(next(p for p in problems if p.row == 3))


def test_json_import_and_errors():
    rows = [{"question_type": "recall", "question": "Q?", "groundtruth_answer": "A", "context": "C", "doc_id": "d1"}]
    items, problems = load_items(json.dumps(rows).encode(), "json")
    assert items[0].doc == "d1" and not problems
    with pytest.raises(UserError, match="malformed"):
        load_items(b"[{", "json")
    with pytest.raises(UserError, match="required column"):
        load_items(b"question,context\nq,c\n", "csv")
    with pytest.raises(UserError, match="document column"):
        load_items(b"question_type,question,groundtruth_answer,context\nrecall,q,a,c\n", "csv")
