"""AppTest: the Accounts page (admins): the role table edited, the last admin kept, the audit record shown; and the
same page behind the sign-in gate for someone who is not an admin."""
import time

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, gated_page


def accounts_page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "accounts.py"), default_timeout=60)


def _give(at: AppTest, who: str, role: str) -> AppTest:
    at.text_input[0].input(who)
    at.selectbox[0].set_value(role)
    next(b for b in at.button if b.label == "Give this role").click()
    return at.run()


def test_the_local_admin_gives_roles_and_reads_the_audit_record(tmp_path, monkeypatch):
    monkeypatch.setenv("NEPAQA_HOME", str(tmp_path))
    at = accounts_page().run()
    assert not at.exception
    assert any("No roles yet" in i.value for i in at.info)
    at = _give(at, "Boss@EPA.gov", "admin")
    assert [s.value for s in at.success] == ["boss@epa.gov is now admin."]
    at = _give(at, "not an address", "viewer")
    assert any("neither an e-mail address nor a group" in e.value for e in at.error)
    at = _give(at, "group:nepa-experts", "expert")
    roles = at.dataframe[0].value
    assert dict(zip(roles["who"], roles["role"], strict=True)) == {"boss@epa.gov": "admin",
                                                                 "group:nepa-experts": "expert"}
    # the last admin e-mail cannot be lowered
    at = _give(at, "boss@epa.gov", "viewer")
    assert any("only admin" in e.value for e in at.error)
    audit = at.dataframe[1].value  # newest first; the refused changes above were not made, so not recorded as done
    assert list(zip(audit["did"], audit["to"], audit["detail"], strict=True)) == [
        ("manage roles", "group:nepa-experts", "no role → expert"), ("manage roles", "boss@epa.gov", "no role → admin")]


def test_a_signed_in_expert_gets_no_accounts_page(tmp_path, monkeypatch):
    monkeypatch.setenv("NEPAQA_HOME", str(tmp_path))
    monkeypatch.setenv("NEPAQA_ROLES", "ada@epa.gov=expert")

    at = AppTest.from_function(gated_page, args=(str(ROOT / "pages" / "accounts.py"),), default_timeout=60)
    at.user = {"is_logged_in": True, "email": "ada@epa.gov", "exp": time.time() + 3600}
    at.run()
    assert not at.exception
    assert any("Only admins manage roles" in i.value for i in at.info) and not at.dataframe
