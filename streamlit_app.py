"""NEPA QA Studio: navigation over the pages in pages/."""
import streamlit as st

st.set_page_config(page_title="NEPA QA Studio", page_icon="🌲", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon="🏠", default=True),
    st.Page("pages/documents.py", title="Documents", icon="📄"),
]

st.navigation(PAGES).run()
