"""Documents: index, list, check, repair, delete, search, metadata and page images."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lib.app import volumes as volumes_case
from lib.app import workers
from lib.app.cli.common import (
    ExitWith,
    chosen_scope,
    command,
    printer,
    run_job,
    scope_flags,
    services,
)
from lib.app.job_handlers import ingest_params
from lib.collection import volumes
from lib.collection.maintenance import check, repair
from lib.core import config
from lib.core.errors import UserError
from lib.core.textfile import read_text
from lib.documents.metadata import (
    cli_metadata,
    get_many,
    set_values,
    tags_many,
)
from lib.documents.page_render import highlight_rects, render_page
from lib.documents.pdf import check_pdf_path
from lib.evaluation.metadata_eval import evaluate as evaluate_metadata
from lib.storage import schema


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("ingest", help="extract, chunk, embed and index a PDF (or, with --queue, queue many)")
    s.add_argument("path", nargs="+", help="a PDF; with --queue, PDFs and folders of them")
    s.add_argument("--queue", action="store_true", help="queue one job per PDF for the workers (server mode)")
    s.add_argument("--manifest", help="with --queue: a CSV with a 'file' column and metadata columns in the CEQ "
                                      "names (title, lead_agency, publish_date, ...); its values override extraction")
    s.add_argument("--volumes", action="store_true",
                   help="the PDFs (in the order given) or the folder's PDFs (by file name) are the volumes of one EIS: "
                        "all are checked before any is indexed, and each joins the EIS when indexed")
    s.add_argument("--name")
    s.add_argument("--chunk-size", type=int)
    s.add_argument("--chunk-overlap", type=int)

    sub.add_parser("docs", help="list indexed documents")

    s = sub.add_parser("volumes", help="EISs published as several PDFs: list, group, take out, suggest")
    vs = s.add_subparsers(dest="action", required=True)
    vs.add_parser("list", help="every EIS of volumes, with its volumes in order")
    g = vs.add_parser("group", help="make indexed documents (in this order) the volumes of one EIS")
    g.add_argument("doc_ids", nargs="+")
    g.add_argument("--to", metavar="EIS_ID", help="add them after the volumes of this EIS instead")
    r = vs.add_parser("remove", help="take a document out of its EIS (it stays indexed)")
    r.add_argument("doc_id")
    vs.add_parser("suggest", help="documents that state the same project, type and date: perhaps one EIS's volumes")

    sub.add_parser("repair", help="remove vectors no committed document owns (skips documents being written)")

    s = sub.add_parser("check", help="does every document have its vectors? exit 1 if not")
    s.add_argument("--fix", action="store_true", help="embed missing vectors again from the stored chunks")

    s = sub.add_parser("delete", help="delete a document from the index")
    s.add_argument("doc_id")

    s = sub.add_parser("search", help="top-k chunks for a query, in one document, a set, all, or a metadata filter")
    scope_flags(s, required=True)
    s.add_argument("-k", type=int, default=5)
    s.add_argument("--method", choices=["hybrid", "dense", "lexical", "bm25"], default="hybrid",
                   help="bm25 is an alias of lexical")
    s.add_argument("--balanced", action="store_true", help="the best chunks of each document in turn")
    s.add_argument("--queries", help="file with one query per line")
    s.add_argument("query", nargs="*")

    s = sub.add_parser("meta", help="show or set a document's metadata")
    s.add_argument("doc_id")
    s.add_argument("--set", action="append", default=[], metavar='KEY="VALUE"',
                   help='e.g. --set lead_agency="U.S. Army Corps of Engineers" (repeatable); --set tags="caribou, arctic" '
                        'replaces the tags')
    s.add_argument("--re-extract", action="store_true",
                   help="read the metadata again with today's rules (a person's values are kept; where the document "
                        "reads otherwise, 'extracted' says what it reads)")

    sub.add_parser("export-metadata", help="the collection's metadata in the CEQ NEPA Data Standard's JSON shape")

    s = sub.add_parser("metadata-eval", help="per-field precision and recall of the metadata rules on your own PDFs")
    s.add_argument("target", help="a folder of PDFs with one CSV of expected values, or that CSV (a 'file' column "
                                  "and one column per field; an empty cell: the document does not say)")
    s.add_argument("--csv", help="the CSV of expected values, where the folder holds several")

    s = sub.add_parser("page", help="render one PDF page as PNG, with a passage highlighted")
    s.add_argument("doc_id")
    s.add_argument("page", type=int, help="page number as printed in citations (from 1)")
    s.add_argument("--highlight", help="text to highlight on the page")
    s.add_argument("--out", required=True, help="PNG file to write")


@command("ingest")
def _ingest(a: argparse.Namespace) -> object:
    if a.chunk_size is not None and a.chunk_size < 16:
        raise UserError(f"--chunk-size must be at least 16 tokens (got {a.chunk_size}).")
    if a.chunk_overlap is not None and a.chunk_overlap < 0:
        raise UserError(f"--chunk-overlap must be 0 or more (got {a.chunk_overlap}).")
    # A missing file, a folder or an oversize file is refused before a job is recorded; any other bad file
    # (not a PDF, encrypted, scanned) fails its job with the reason, before the embedding model is loaded.
    if a.volumes:
        if a.queue or a.manifest or a.name:
            raise UserError("--volumes indexes the set here, each volume named after its file: leave out "
                            "--queue, --manifest and --name (a manifest's 'eis' column groups a queued set).")
        return _ingest_volumes(a)
    if a.queue:
        if a.name:
            raise UserError("--name names one document; with --queue each document is named after its file.")
        return workers.queue_ingest(a.path, a.chunk_size, a.chunk_overlap, a.manifest).as_dict()
    if a.manifest:
        raise UserError("--manifest gives the metadata of a bulk ingest: use it with --queue.")
    if len(a.path) > 1:
        raise UserError("Give one PDF (or use --queue to queue several, or a folder, for the workers).")
    path = a.path[0]
    check_pdf_path(path, config.max_upload_bytes())
    res = run_job("ingest", ingest_params(str(Path(path).resolve()), a.name, a.chunk_size, a.chunk_overlap),
                   f"Index {a.name or Path(path).name}")
    keys = ("doc_id", "name", "pages", "chunks", "empty_pages", "seconds", "ocr_pages", "ocr_failed", "ocr_missing")
    return {k: res[k] for k in keys} | {"status": "already indexed" if res["skipped"] else "indexed"}


def _ingest_volumes(a: argparse.Namespace) -> object:
    """A set of volumes: checked whole (a bad volume refuses the set, before anything is indexed), then each indexed
    in turn; a volume whose ingest fails is reported with its reason and the others go on (exit 1)."""
    files, how = volumes_case.set_on_disk(a.path)
    eis_id = volumes.new_id()
    done, failed = [], []
    for number, f in enumerate(files, start=1):
        try:
            res = run_job("ingest", volumes_case.volume_params(f, number, eis_id, how, a.chunk_size, a.chunk_overlap),
                          f"Index {f.name} (volume {number} of {len(files)})")
        except UserError as exc:
            failed.append({"volume": number, "file": f.name, "error": str(exc)})
            continue
        done.append({"volume": number, "file": f.name, "doc_id": res["doc_id"], "pages": res["pages"],
                     "status": "already indexed" if res["skipped"] else "indexed"})
    out: dict[str, object] = {"eis_id": eis_id, "volumes": done, "failed": failed}
    if failed:
        out["note"] = (f"The EIS is incomplete: volume(s) {', '.join(str(x['volume']) for x in failed)} could not be "
                       "indexed (see 'failed'). Fix the file, index it (`python -m lib ingest FILE`), then add it "
                       f"with `python -m lib volumes group DOC_ID --to {eis_id}` (it is numbered after the others).")
        raise ExitWith(1, out)
    return out


@command("volumes")
def _volumes(a: argparse.Namespace) -> object:
    svc = services()
    if a.action == "list":
        return [volumes_case.as_dict(e) for e in volumes_case.every(svc)]
    if a.action == "group":
        return volumes_case.as_dict(volumes_case.group(svc, a.doc_ids, a.to))
    if a.action == "remove":
        volumes_case.take_out(svc, a.doc_id)
        return {"removed": a.doc_id, "status": "still indexed, on its own"}
    return [[{"doc_id": d.doc_id, "file": d.name, "pages": d.pages} for d in same]
            for same in volumes_case.suggestions(svc)]


@command("docs")
def _docs(a: argparse.Namespace) -> object:
    docs = services().docs
    listed = sorted(docs.list(), key=lambda d: d.doc_id)
    metas = get_many([d.doc_id for d in listed], docs.engine)
    tags = tags_many([d.doc_id for d in listed], docs.engine)
    return [{"doc_id": d.doc_id, "name": d.name, "pages": d.pages, "chunks": d.chunks, "read_by_ocr": d.ocr_pages,
             "scans_unread": sorted({*d.ocr_missing, *d.ocr_failed}),
             "metadata": cli_metadata(d.doc_id, meta=metas[d.doc_id]), "tags": tags[d.doc_id]} for d in listed]


@command("repair")
def _repair(a: argparse.Namespace) -> object:
    return repair(services().docs).as_dict()


@command("check")
def _check(a: argparse.Namespace) -> object:
    docs = services().docs
    for note in schema.notes(docs.engine):
        print(f"note: this store's upgrade, {note}", file=sys.stderr)
    checked = check(docs, fix=a.fix, progress=printer())
    report = [c.as_dict() for c in checked]
    stale = [c.doc_id for c in checked if c.chunks and not c.same_embedder_as_queries]
    if stale:
        print(f"note: {len(stale)} document(s) were embedded by another embedder and are searched by their words "
              "until embedded again (the app does it in the background; `python -m lib check --fix` does it now): "
              + ", ".join(stale), file=sys.stderr)
    if not all(c.ok for c in checked):
        bad = [c.doc_id for c in checked if not c.ok]
        print(f"error: {len(bad)} document(s) lack vectors: {', '.join(bad)}"
              + ("" if a.fix else "; run `python -m lib check --fix` to embed them again"), file=sys.stderr)
        raise ExitWith(1, report)
    return report


@command("delete")
def _delete(a: argparse.Namespace) -> object:
    services().docs.delete(a.doc_id)
    return {"deleted": a.doc_id}


@command("search")
def _search(a: argparse.Namespace) -> object:
    if a.k < 1:
        raise UserError("-k must be at least 1.")
    if a.queries:  # read (and refuse) the file before the embedding model loads

        queries = [q for q in read_text(a.queries, "queries file").splitlines() if q.strip()]
    if not a.queries and not a.query:
        raise UserError("Give a QUERY, or --queries FILE with one query per line.")
    svc = services()
    scope = chosen_scope(a, svc)
    ids = None if scope == "*" else ([scope] if isinstance(scope, str) else scope)

    def run(q: str) -> list[dict]:
        return [h.as_dict() for h in svc.retriever.search_scope(ids, q, a.k, a.method, balanced=a.balanced)]

    if a.queries:
        return [run(q) for q in queries]
    return run(" ".join(a.query))


@command("meta")
def _meta(a: argparse.Namespace) -> object:
    docs = services().docs
    docs.get(a.doc_id)
    if a.re_extract:
        docs.reextract_metadata(a.doc_id)
    if a.set:
        values = {}
        for item in a.set:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise UserError(f'--set takes KEY="VALUE"; got {item!r}.')
            values[key.strip()] = value.strip().strip("\"'")
        set_values(a.doc_id, values, docs.engine)
    return {**cli_metadata(a.doc_id, docs.engine), "tags": tags_many([a.doc_id], docs.engine)[a.doc_id]}


@command("export-metadata")
def _export_metadata(a: argparse.Namespace) -> object:
    svc = services()
    return volumes_case.export(svc.docs.list(), svc)


@command("metadata-eval")
def _metadata_eval(a: argparse.Namespace) -> object:
    return evaluate_metadata(a.target, a.csv)


@command("page")
def _page(a: argparse.Namespace) -> object:
    if a.page < 1:
        raise UserError("Pages are numbered from 1, as printed in citations.")

    out = Path(a.out)
    if out.is_dir():
        raise UserError(f"{out} is a folder; give a file name such as page.png.")
    if not out.parent.is_dir():
        raise UserError(f"The folder {out.parent} does not exist; create it or write the PNG elsewhere.")
    services().docs.get(a.doc_id)
    png = render_page(a.doc_id, a.page, a.highlight)
    try:
        out.write_bytes(png)
    except OSError as exc:
        raise UserError(f"Could not write {out} ({exc.strerror or type(exc).__name__}).") from exc
    result = {"doc_id": a.doc_id, "page": a.page, "out": str(out), "bytes": len(png)}
    if a.highlight:
        found = len(highlight_rects(a.doc_id, a.page, a.highlight))
        result["highlighted_lines"] = found
        if not found:
            print("note: the --highlight text was not found on this page; it is rendered without a highlight.",
                  file=sys.stderr)
    return result

