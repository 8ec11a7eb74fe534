"""Benchmark: import or generate NEPAQuAD-style items, run models × modes, score, chart and download (the Results
tab is drawn by pages/_benchmark_results.py)."""

import pandas as pd
import streamlit as st

from lib.app import benchmark as bench_case
from lib.app import benchmark_params, charts, estimates, generate_params
from lib.app import volumes as volumes_case
from lib.core import access, config, told_apart
from lib.evaluation.benchmark import (
    QUESTION_TYPES,
    Item,
    RunConfig,
    StoredRun,
    list_runs,
    load_items,
    pick_passages,
    select_items,
)
from lib.models import registry
from lib.qa import MODE_LABELS, MODES
from lib.review import annotations
from lib.storage import jobs
from pages._benchmark_results import results_tab
from pages._gate import through_gate
from pages._jobs import watch
from pages._ui import doc_label, plain, run_safely, services, table

through_gate()  # a page reached without the app's sign-in gate goes back through it

st.title("📊 Benchmark")
st.caption("Which model, with which context, answers EIS questions well? A yes/no item is right or wrong on its "
           "verdict; any other answer is compared with the expected one, by a judge model where one is connected, "
           "else by shared words. The two kinds of score are always reported apart, each with n and a 95% interval.",
           help="Open answers: RAGAS answer correctness (0.75 × factual F1 over statements + 0.25 × semantic "
                "similarity) with a judge model; offline, the token-F1 proxy, which is not RAGAS and not comparable "
                "with published RAGAS figures.")
svc = services()
available = {p.id: p.label for p, ok, _ in registry.status_all()
             if ok and (p.local or access.allowed(access.Action.CONNECTED_MODEL))}
runner = access.allowed(access.Action.RUN_BENCHMARK)  # runs, generation and review items: analysts and up


def label_of(model_id: str) -> str:
    """Our label for a model, for Markdown; an id we do not know (from a stored run) is shown as written."""
    return available.get(model_id) or plain(model_id)

def part_name(part: dict) -> str:
    """An estimate's part in plain words: "SmolLM2-135M (tiny local model) · RAG"."""
    name = available.get(part["model"], part["model"])
    return f"{name} · {MODE_LABELS.get(part['mode'], part['mode'])}" if part.get("mode") else name


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


TABS = ["1 · Items", "Generate items", "2 · Run", "3 · Results"]
opened = {"Results": TABS[3], "Items": TABS[0]}.get(st.session_state.pop("bench_tab", ""), TABS[0])
generated = st.session_state.pop("load_generated", None)
if generated:  # "Open result" of a generation job: load its items for a run
    gen = jobs.get(generated).result
    st.session_state["bench_items"] = ([Item(**d) for d in gen.get("items", [])], [])
    st.session_state["bench_source"] = gen.get("source") or "generated"
tab_data, tab_gen, tab_run, tab_results = st.tabs(TABS, default=opened)

# ----- items ---------------------------------------------------------------------------------------
with tab_data:
    c1, c2 = st.columns([3, 2])
    up = c1.file_uploader("Import a benchmark (CSV or JSON)", type=["csv", "json"], key="bench_upload")
    c2.markdown("Required columns: `question_type`, `question`, `groundtruth_answer`, `context`, and "
                "`EIS_filename` or `doc_id`. Optional: `ID`, `proof`, `page_number`, `position`.")
    if c2.button("Load the sample set (20 items)", icon="🌲"):
        st.session_state["bench_items"] = load_items(config.SAMPLE20)
        st.session_state["bench_source"] = config.SAMPLE20.name
    if c2.button("Load all 155 sample items"):
        st.session_state["bench_items"] = load_items(config.SAMPLE_QUESTIONS)
        st.session_state["bench_source"] = config.SAMPLE_QUESTIONS.name
    if up is not None and st.session_state.get("bench_upload_name") != up.name:
        loaded = run_safely(load_items, up.getvalue(), up.name.rsplit(".", 1)[-1])
        if loaded is not None:
            st.session_state["bench_items"] = loaded
            st.session_state["bench_source"] = up.name
            st.session_state["bench_upload_name"] = up.name
    loaded = st.session_state.get("bench_items")
    if not loaded:
        st.info("Import a file or load the sample set to start.")
    else:
        items, problems = loaded
        st.success(f"{len(items)} items from {plain(bench_case.item_set_name(st.session_state['bench_source']))}")
        if problems:
            with st.expander(f"⚠️ {len(problems)} row(s) left out"):
                table(pd.DataFrame([{"row": p.row, "column": p.column, "reason": p.reason} for p in problems]),
                             hide_index=True, width="stretch")
        unmatched = sorted({it.doc for it in items if not svc.docs.find(it.doc)})
        n_unmatched = sum(1 for it in items if it.doc in unmatched)
        if unmatched:
            st.warning(f"{n_unmatched} item(s) refer to documents that are not indexed ({plain(', '.join(unmatched))}): "
                       f"they run with {MODE_LABELS['none']} and {MODE_LABELS['gold']} only. Index the PDF on the "
                       f"Documents page to add {MODE_LABELS['pdf']} and {MODE_LABELS['rag']}.")
        # the items the page's width (in three fifths of it, the question ran past its edge), their types below
        refs = {it.doc for it in items}  # as people name the document, by its file only where two titles match
        names = told_apart({d: doc_label(d) for d in refs}, {d: d for d in refs})
        table(charts.items_table(items).assign(document=lambda t: t["document"].map(names)), hide_index=True,
              width="stretch", height=300,
              long=["question", "expected answer", "document"])
        st.altair_chart(charts.type_counts([it.question_type for it in items]), width="stretch")
        if st.button("Send these items to the validation queue", disabled=not runner,
                     help=None if runner else "Needs the analyst role."):
            n = annotations.add_items(items, st.session_state["bench_source"])
            st.success(f"{n} items are in the validation queue: open **Validate** to review them.")

# ----- generate ------------------------------------------------------------------------------------
with tab_gen:
    docs = svc.docs.list()
    if not docs:
        st.info("Index a document first (Documents page).")
    else:
        names = {d.doc_id: d.name for d in docs}
        gdoc = st.selectbox("Document", list(names), format_func=names.get, key="gen_doc")
        info = svc.docs.get(gdoc)
        chunks = svc.docs.chunks(gdoc)
        how = st.radio("Gold passages", ["Spread 2/6/2 over beginning/middle/end", "Pick pages"], horizontal=True)
        if how.startswith("Spread"):
            n_pass = st.slider("How many passages", 1, 30, 2, help="The defaults finish in about a minute offline.")
            passages = pick_passages(chunks, n_pass)
        else:
            pages_sel = st.multiselect("Pages", list(range(1, info.pages + 1)))
            passages = [next(c for c in chunks if c.page_start <= p <= c.page_end) for p in pages_sel
                        if any(c.page_start <= p <= c.page_end for c in chunks)]
            passages = list(dict.fromkeys(passages))
        gmodel = st.selectbox("Writer model", [m for m in available if m != registry.EXTRACTIVE], format_func=available.get)
        types = st.multiselect("Question types", QUESTION_TYPES, default=["closed", "recall"],
                               help="One model call per passage and type; add types for a fuller set.")
        n_closed = st.number_input("Closed questions per passage", 0, 20, 2)
        n_other = st.number_input("Questions of each other type per passage", 0, 10, 1)
        per_type_plan = {t: (n_closed if t == "closed" else n_other) for t in types}
        if gmodel and passages and types:
            gest = estimates.generation(gmodel, len(passages), per_type_plan)
            st.markdown(f"**Planned:** up to {len(passages) * sum(per_type_plan.values())} items from "
                        f"{plural(len(passages), 'passage')} in {plural(gest.calls, 'model call')} · "
                        f"**estimated time** {plain(gest.text(part_name))}")
        st.caption("The tiny local model rarely writes well-formed CSV; a cloud model does far better.")
        if st.button("Generate", type="primary", disabled=not (passages and types and gmodel and runner)):
            per_type = {t: (n_closed if t == "closed" else n_other) for t in types}
            st.session_state["gen_job"] = jobs.submit(
                "generate", generate_params(gdoc, [c.index for c in passages], gmodel, per_type),
                f"Generate items · {info.name}")
        job = watch(st.session_state.get("gen_job"), "gen")
        if job is not None and job.status in ("done", "cancelled") and job.result:
            rep = job.result
            c = st.columns(3)
            c[0].metric("Generated", rep.get("generated", 0))
            c[1].metric("Well-formed", rep.get("well_formed", 0))
            c[2].metric("Kept (proof found in passage)", rep.get("kept", 0))
            if rep.get("source"):
                if st.button("Load these items for a run", key="gen_load"):
                    st.session_state["load_generated"] = job.job_id
                    st.rerun()
                st.success(f"{rep['kept']} items are in the validation queue ({plain(bench_case.item_set_name(rep['source']))}).")
            if rep.get("problems"):
                with st.expander(f"{len(rep['problems'])} problem(s)"):
                    st.text("\n".join(f"- {p}" for p in rep["problems"]))  # quotes the model's output: text

def run_name(r: StoredRun) -> str:
    """Plain words for a run: its models, modes, item count and start time to the second (its id and settings are
    in its configuration table, under Results)."""
    return charts.stored_run_title(r, lambda m: available.get(m, m), MODE_LABELS)


# ----- run -----------------------------------------------------------------------------------------
with tab_run:
    loaded = st.session_state.get("bench_items")
    if not loaded:
        st.info("Load items first (tab 1).")
    else:
        items, _ = loaded
        c1, c2 = st.columns(2)
        # The default is the extractive baseline alone: instant, so the whole loaded set fits in about a minute and
        # each cell has enough items to read; SmolLM2 (a few seconds an answer here) and connected models are one click.
        smol = estimates.answer_rate(registry.SMOLLM2, "rag")
        models = c1.multiselect("Models", list(available), default=[m for m in (registry.EXTRACTIVE,) if m in available],
                                format_func=available.get, key="run_models",
                                help=f"The bundled SmolLM2 answers a question with retrieved passages in about "
                                     f"{estimates.duration(smol.seconds)} here ("
                                     f"{'the median of its recent calls' if smol.measured else 'a rough guess: not measured here yet'}"
                                     "); a connected model (sidebar of Ask) is the comparison a benchmark is for.")
        # Full PDF takes ~15–30 s an answer with the offline model: left out of the default, one click to add.
        modes = c2.multiselect("Context modes", MODES, default=["rag", "gold"], format_func=MODE_LABELS.get,
                               key="run_modes")
        # The default item count is what the default models and modes finish in about a minute here, from measured
        # times (set once, when the tab first shows; the estimate below follows every change).
        fit = estimates.items_that_fit(estimates.benchmark(1, models, modes).seconds if models and modes else 0.0,
                                       len(items))
        c3, c4, c5, c6 = st.columns(4)
        which = c3.selectbox("Items", ["all", *QUESTION_TYPES], format_func=lambda t: "all types" if t == "all" else t)
        limit = c4.number_input("How many items (0 = all)", 0, len(items), fit, key="run_limit",
                                help="It starts at as many items as the default models finish in about a minute "
                                     "here (0, all of them, where they all do); the estimate below says how long "
                                     "your choice takes.")
        seed = c5.number_input("Sample seed", -1, 10_000, 0 if fit else -1, key="run_seed",
                               help="With a limit, a seeded random sample spreads the items over question types; "
                                    "the same seed picks the same items. -1 takes the items in order.")
        k = c6.slider("k (RAG)", 1, 10, 3)
        whole_eis = bool(volumes_case.every(svc)) and st.toggle(
            "Whole EIS: a question on one volume is answered from every volume of its EIS", key="run_whole_eis",
            help="Full-PDF and RAG answers then read (or search) all the volumes, as a reader of the whole EIS would.")
        judges = ["(none: token-F1 proxy, not RAGAS)", *registry.judge_choices()]
        judge = st.selectbox("Judge for the factual part", judges,
                             format_func=lambda j: available.get(j, j),
                             help="With a judge model, open answers get RAGAS answer correctness. Without one they get the offline "
                                  "token-F1 proxy, which is not comparable with published RAGAS figures.")
        if not judge.startswith("("):
            warn = registry.get(judge).judge_warning()
            if warn:
                st.warning(warn)
        chosen = select_items(items, limit or None, None if seed < 0 else seed, None if which == "all" else which)
        if models and modes and chosen:
            unmatched_docs = {it.doc for it in chosen if not svc.docs.find(it.doc)}
            in_doc = sum(1 for it in chosen if it.doc not in unmatched_docs)
            per_mode = {m: (in_doc if m in ("pdf", "rag") else len(chosen)) for m in modes}
            est = estimates.benchmark(len(chosen), models, modes, from_mode=per_mode)
            st.markdown(f"**Planned:** {est.calls} answers ({plural(len(chosen), 'question')}, "
                        f"{plural(len(models), 'model')}, {plural(len(modes), 'context mode')}) · "
                        f"**estimated time** {plain(est.text(part_name))}")
        past = {r.run_id: r for r in list_runs()}
        resume = st.selectbox("Or resume a run", ["(new run)", *past],
                              format_func=lambda rid: rid if rid == "(new run)" else run_name(past[rid]))
        if resume != "(new run)":
            rc = past[resume].config
            st.info(f"Resuming uses that run's own configuration, not the choices above: models "
                    f"{plain(', '.join(rc.models))}; modes {plain(', '.join(rc.modes))}; "
                    f"judge {plain(rc.judge or 'none')}. "
                    "It is refused if the models' options, prompts or documents have changed since.")
        if not runner:
            st.info("Running benchmarks needs the analyst role. Ask an admin of this app if you need it.")
        if st.button("Run", type="primary", disabled=not (models and modes and chosen and runner)):
            cfg = RunConfig(models=models, modes=modes, k=k, judge=None if judge.startswith("(") else judge,
                            limit=limit or None, seed=None if seed < 0 else seed,
                            question_type=None if which == "all" else which, source=st.session_state["bench_source"],
                            whole_eis=whole_eis)
            if resume == "(new run)":
                params = benchmark_params(items, cfg)
            else:
                params = benchmark_params(None, None, resume)
            title = charts.run_title(cfg if resume == "(new run)" else past[resume].config,
                                     len(chosen) if resume == "(new run)" else past[resume].n_items,
                                     lambda m: available.get(m, m), MODE_LABELS)
            st.session_state["bench_job"] = jobs.submit("benchmark", params, f"Benchmark · {title}")
        job = watch(st.session_state.get("bench_job"), "bench")
        if job is not None and job.status in ("done", "cancelled") and job.result.get("summary"):
            sm = job.result["summary"]
            st.session_state["bench_run"] = job.result["run_id"]
            if st.session_state.get("_bench_run_shown") != job.result["run_id"]:  # show the new run once in Results
                st.session_state["_bench_run_shown"] = job.result["run_id"]
                st.session_state["results_run"] = job.result["run_id"]
            st.success(f"Finished: {sm['answers']} answers, {sm['failures']} failures, "
                       f"{sm['judge_failures']} judge failures, {sm['unclear']} unclear verdicts"
                       + (f", {sm['no_verdict']} with no verdict (quotes only)" if sm.get("no_verdict") else "")
                       + ". "
                       "See the Results tab.")

# ----- results -------------------------------------------------------------------------------------
with tab_results:
    results_tab(svc, available, label_of, run_name)
