"""NEPA QA Studio: the sign-in gate, then navigation over the pages in pages/."""
import streamlit as st

from lib.core import access
from pages._gate import draw, enter

st.set_page_config(page_title="NEPA QA Studio", page_icon="🌲", layout="wide")


actor, closed = enter()  # who acts on this rerun, from the signed-in account (pages/_gate.py)
if closed is not None:  # every address shows the gate alone
    st.navigation([st.Page(lambda: draw(closed), title="Sign in", icon="🧑", url_path="sign-in")],
                  position="hidden").run()
    st.stop()

PAGES = [
    st.Page("pages/home.py", title="Home", icon="🏠", default=True),
    st.Page("pages/documents.py", title="Documents", icon="📄"),
    st.Page("pages/ask.py", title="Ask", icon="💬"),
    st.Page("pages/search.py", title="Search", icon="🔎"),
    st.Page("pages/benchmark.py", title="Benchmark", icon="📊"),
    st.Page("pages/validate.py", title="Validate", icon="✅"),
    st.Page("pages/arena.py", title="Arena", icon="⚖️"),
    st.Page("pages/enviroexam.py", title="EnviroExam", icon="🎓"),
]
if access.allowed(access.Action.MANAGE_ROLES):
    PAGES.append(st.Page("pages/accounts.py", title="Accounts", icon="🧑"))

nav = st.navigation(PAGES)
from lib.models import warm_up_in_background  # noqa: E402

warm_up_in_background()  # once per process: the embedder loads while the first page is already on screen
from pages._jobs import jobs_panel  # noqa: E402 - after st.navigation, which the shared widgets expect

with st.sidebar:
    jobs_panel()  # running jobs and their progress on every page
nav.run()
