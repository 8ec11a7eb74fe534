"""A table passage is shown as a table, not as Markdown pipes: its rows as data under its caption (the caption
shown as written, never as markup), with any prose joined to it in one source as text."""
from streamlit.testing.v1 import AppTest


def _show() -> None:
    import sys

    sys.path.insert(0, ".")
    from pages._ui import show_passage

    show_passage("The sites were surveyed in 2015.\n"
                 "Table 4-2 **Wetland** Acres <b>by</b> Alternative\n"
                 "| Wetland type | Acres | Acres |\n| --- | --- | --- |\n"
                 "| Emergent marsh | 12.4 | <script>x</script> |\n| Forested swamp | 40.2 |")
    show_passage("Wetlands were mapped with GPS.")


def test_a_table_passage_is_shown_as_a_table_under_its_caption():
    at = AppTest.from_function(_show).run()
    assert not at.exception
    [frame] = at.dataframe
    df = frame.value
    assert list(df.columns) == ["Wetland type", "Acres", "Acres (3)"]  # names made unique, every cell kept
    assert df.values.tolist() == [["Emergent marsh", "12.4", "<script>x</script>"], ["Forested swamp", "40.2", ""]]
    assert [t.value for t in at.text] == ["The sites were surveyed in 2015.", "Wetlands were mapped with GPS."]
    assert at.caption[0].value == r"Table 4-2 \*\*Wetland\*\* Acres \<b\>by\</b\> Alternative"
