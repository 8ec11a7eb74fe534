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
    st.Page("pages/enviroexam.py", title="EnviroExam", icon="🎓"),
]

st.navigation(PAGES).run()
