"""The app layer: what the two faces share above the library. The command line (``cli``), the job handlers it and
the pages run (registered with lib/storage/jobs.py on import), the shared services (index, documents, retriever),
the use cases the pages draw and the command line shares (``arena``: one expert's voting session; ``ask``: what a
question is asked with, its answers on screen and the history; ``benchmark``: a run's results; ``documents``: the
documents table, indexing and its result; ``exam``: a run's plan and the visitor's quiz; ``search``: the
collection filtered and searched; ``validate``: where a review resumes and what it saves), time estimates shown
before long work, how wide a text is drawn (``text_width``: the tables' columns are sized to it), every chart and score table the pages lay out, and the worker processes of server mode
(``workers``); sign-in, roles and the audit record as the app meets them (``accounts``)."""
from lib.app import (
    accounts,
    arena,
    ask,
    benchmark,
    charts,
    documents,
    estimates,
    exam,
    job_handlers,
    search,
    text_width,
    validate,
    volumes,
    workers,
)
from lib.app.job_handlers import (
    REEMBED,
    benchmark_params,
    exam_params,
    generate_params,
    ingest_params,
    queue_reembed,
    reindex_params,
    stage_upload,
)
from lib.app.services import Services, get_services

__all__ = ["REEMBED", "Services", "accounts", "arena", "ask", "benchmark", "benchmark_params", "charts", "documents", "estimates", "exam", "exam_params", "generate_params", "get_services",
           "ingest_params", "job_handlers", "queue_reembed", "reindex_params", "search", "stage_upload",
           "text_width", "validate", "volumes", "workers"]
