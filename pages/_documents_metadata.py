"""The Documents page's metadata panel: each value with its source, where it was read and how sure the rules
are; "not found — fill or edit" where nothing was found; where a person's value and the document disagree; a
form to correct values (saved as the person's); reading the PDF again; a connected model filling the empty and
unsure fields."""
import pandas as pd
import streamlit as st

from lib.app import Services
from lib.core import access
from lib.documents import metadata as meta_lib
from lib.models import registry
from pages._ui import plain, run_safely, table


def metadata_panel(svc: Services, doc_id: str, meta: meta_lib.Metadata, doc_tags: list[str], all_tags: list[str]) -> None:
    flash = st.session_state.pop("meta_flash", None)
    if flash:
        st.success(flash)
    rows = pd.DataFrame(meta_lib.panel_rows(meta))
    table(rows.drop(columns=["name in the standard"]), hide_index=True, width="stretch", long=["value", "where"],
          column_config={
        "field": st.column_config.TextColumn("field", width="medium"),
        "value": st.column_config.TextColumn("value", width="large"),
        "source": st.column_config.TextColumn("source", width="small"),
        "where": st.column_config.TextColumn("where", width="medium", help="The page and lines the value was read "
                                             "from and the rule that read it, or the PDF property."),
        "confidence": st.column_config.TextColumn(
            "confidence", width="small", help=f"The rules' weight of the evidence, 0–1. Below {meta_lib.THRESHOLD:.2f} "
                                              "a value is not shown at all: a wrong value is worse than an empty one.")})
    with st.expander("Each field's name in the CEQ NEPA data standard (as in the JSON download)"):
        table(rows[["field", "name in the standard"]], hide_index=True, width="stretch")
    st.caption(f"Read from the PDF's properties and its first pages (the title page is found by its largest type; "
               f"where the cover names no state, a sentence saying where the project lies). A value the rules are "
               f"less sure of than {meta_lib.THRESHOLD:.2f} is left empty; your edits are never overwritten.")
    for line in meta_lib.from_the_body(meta):
        st.caption(plain(line))
    for line in meta_lib.disagreements(meta):
        st.info(plain(line), icon="ℹ️")

    connected = [p for p, ok, _ in registry.status_all() if ok and p.judges_reliably]
    asked = meta_lib.unsure(meta)
    c1, c2, c3 = st.columns([2, 2, 3])
    model_id = None
    if connected:
        labels = {p.id: f"{p.label} ({p.id})" for p in connected}
        model_id = c3.selectbox("Model", list(labels), format_func=labels.get, key="meta_fill_model")
        why = ("Nothing to fill: every field has a value the rules are sure of, or one you set." if not asked else
               f"Sends the first pages and the PDF's properties; fills {len(asked)} empty or unsure field(s) "
               "and marks each as the model's.")
    else:
        why = ("Only the bundled models are configured: SmolLM2-135M is too small to read a cover reliably and the "
               "extractive baseline is not a language model. Configure OpenAI, Anthropic, an OpenAI-compatible server "
               "or a larger local GGUF model to fill from the document.")
    editor = access.allowed(access.Action.EDIT_METADATA)
    if not editor:
        why = "Editing metadata needs the analyst role. Ask an admin of this app if you need it."
    fill = c1.button("Fill from the document", key="meta_fill", disabled=not connected or not asked or not editor,
                     help=why)
    again = c2.button("Read the PDF again", key="meta_reread", disabled=not editor,
                      help="Run today's rules on this document again. Your edits are kept; where the document "
                           "reads otherwise, the page says so.")
    if not connected:
        st.caption(why)
    if again and run_safely(svc.docs.reextract_metadata, doc_id) is not None:
        edited = any(v.source == "person" for v in meta.values())
        st.session_state["meta_flash"] = "Read the metadata again from the PDF" + (
            "; your edits were kept." if edited else ".")
        st.rerun()
    if fill and model_id:
        ex = svc.docs.stored_pdf(doc_id)
        pages_text = [p.text for p in ex.pages[: meta_lib.COVER_PAGES]]
        with st.spinner("Asking the model…"):
            res = run_safely(meta_lib.fill_with_model, doc_id, registry.get(model_id), pages_text, svc.docs.engine,
                             properties=ex.pdf_metadata)
        if res is not None:
            filled = ", ".join(res.filled) or "nothing (the pages do not state those fields)"
            rejected = f" Refused (wrong type or value): {', '.join(res.rejected)}." if res.rejected else ""
            ignored = f" Ignored (not asked): {', '.join(res.ignored)}." if res.ignored else ""
            st.session_state["meta_flash"] = plain(f"The model filled: {filled}.{rejected}{ignored}")
            st.rerun()

    with st.form(f"tags_form_{doc_id}"):
        new_tags = st.multiselect("Tags", all_tags, default=doc_tags, accept_new_options=True, key=f"tags_{doc_id}",
                                  help="Your own labels (e.g. caribou, arctic): type a new one and press Enter. "
                                       "Filter by them in the sidebar and in search scopes.")
        save_tags = st.form_submit_button("Save tags", disabled=not editor)
    if save_tags and run_safely(meta_lib.set_values, doc_id, {meta_lib.TAGS: new_tags}, svc.docs.engine) is not None:
        st.session_state["meta_flash"] = "Saved the tags."
        st.rerun()

    if st.toggle("Edit metadata", key="meta_edit"):
        _edit_form(svc, doc_id, meta)


def _edit_form(svc: Services, doc_id: str, meta: meta_lib.Metadata) -> None:
    with st.form(f"meta_form_{doc_id}"):
        new = {}
        for k in meta_lib.FIELDS:
            cur = meta[k].value
            wkey = f"meta_{k}_{doc_id}"
            if k in ("document_type", "process_type"):
                options = ["", *(meta_lib.DOCUMENT_TYPES if k == "document_type" else meta_lib.PROCESS_TYPES)]
                new[k] = st.selectbox(meta_lib.FIELD_LABELS[k], options, index=options.index(cur) if cur in options else 0,
                                      key=wkey)
            elif k == "states":
                new[k] = st.multiselect(meta_lib.FIELD_LABELS[k], list(meta_lib.STATES), default=cur or [], key=wkey,
                                        format_func=lambda c: f"{c} · {meta_lib.STATES[c]}")
            elif k == "cooperating_agencies":
                new[k] = st.text_area(meta_lib.FIELD_LABELS[k], "\n".join(cur or []), key=wkey, help="One agency per line.")
            else:
                new[k] = st.text_input(meta_lib.FIELD_LABELS[k], cur or "", key=wkey,
                                       help="YYYY-MM-DD, YYYY-MM or YYYY" if k == "publish_date" else None)
        saved = st.form_submit_button("Save metadata", disabled=not access.allowed(access.Action.EDIT_METADATA))
    if saved:
        changed = {}
        for k, v in new.items():
            if k == "cooperating_agencies":
                v = [line.strip() for line in v.splitlines() if line.strip()]
            before = meta[k].value
            if (v or None) != (before or None):
                changed[k] = "; ".join(v) if k == "cooperating_agencies" else v
        if not changed:
            st.info("Nothing changed.")
        elif run_safely(meta_lib.set_values, doc_id, changed, svc.docs.engine) is not None:
            names = ", ".join(meta_lib.FIELD_LABELS.get(k, k) for k in changed)
            st.session_state["meta_flash"] = f"Saved {names} (source: person)."
            st.rerun()
