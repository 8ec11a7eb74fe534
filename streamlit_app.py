"""NEPA QA Studio: navigation over the pages in pages/."""
import streamlit as st

st.set_page_config(page_title="NEPA QA Studio", page_icon="🌲", layout="wide")

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

nav = st.navigation(PAGES)
from lib.models import warm_up_in_background  # noqa: E402

warm_up_in_background()  # once per process: the embedder loads while the first page is already on screen
from pages._jobs import jobs_panel  # noqa: E402 - after st.navigation, which the shared widgets expect

with st.sidebar:
    jobs_panel()  # running jobs and their progress on every page
nav.run()
