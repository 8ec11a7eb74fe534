"""Document metadata: who, what, where and when an EIS is, with where each value came from and how sure the rules
are. This package's face; its modules each do one job: ``fields`` (the fields, vocabularies, checks),
``patterns`` (dates, states, numbers, document types in text), ``body_states`` (the states a sentence of the
first pages places the project in, where the cover names none), ``layout`` (mending broken words, finding the title
page by its type), ``evidence`` (weighing candidates: confidence and threshold), ``extraction`` (the rules at
ingest), ``explain`` (the page's plain words), ``records`` (stored values and tags), ``fill`` (a connected model
fills gaps), ``query`` (filters, sorts, names), ``ceq_export`` (the data standard's JSON).

Field names and values follow the CEQ NEPA and Permitting Data and Technology Standard, v1.2 (published by CEQ
with the Permitting Council and GSA on permitting.innovation.gov; its toolkit is GSA-TTS/pic-standards, whose
``src/jsonschema/nepa.schema.json`` and ``src/database/schema-v1.2.0.sql`` this package follows):

- ``project``: ``project_id``, ``project_title``, ``project_description``, ``project_sector``, ``project_sponsor``,
  ``lead_agency``, ``participating_agencies``, ``location`` (an object with a text ``description``);
- ``process``: ``process_id``, ``project_id``, ``process_type`` (``CE`` | ``EA`` | ``EIS``), ``process_status``,
  ``lead_agency``, ``joint_lead_agency``, ``cooperating_agencies``, ``federal_unique_id``, ``agency_id``;
- ``document``: ``document_id``, ``process_id``, ``document_type`` (the schema lists ``NOI``, ``Draft EIS``,
  ``Final EIS``, ``ROD``; we add the supplemental and programmatic variants, ``EA`` and ``FONSI``), ``title``,
  ``publish_date`` (ISO date), ``prepared_by``, ``volume_title``, ``url``, ``notes``;
- v1.2's provenance properties on every record: ``data_source_system``, ``data_record_version``, ``last_updated``
  and an ``other`` object for additional data.

The collection exports as the schema's root object, ``{"projects": [...], "processes": [...], "documents": [...]}``.
Our own fields ``states`` (USPS codes) and ``eis_number`` (the CEQ/EPA filing number or the agency's EIS number as
printed) sit beside the standard's fields, never instead of them.

Values are extracted at ingest by rules (``extract``: the PDF's properties and the first pages' text and layout
only, so it costs milliseconds whatever the length of the PDF), can be filled by a connected model on request
(``fill_with_model``) and edited by a person (``set_values``). Each value keeps its source (``pdf_metadata``,
``cover_text``, ``body_text`` (states only), ``model`` or ``person``), its evidence (page and line, or the property) and, for the rules, a
confidence; a value below ``THRESHOLD`` is not stored. A person's value is never overwritten by extraction or a
model; where the rules later read otherwise, their reading is kept beside it.
"""
from lib.documents.metadata import manifest_csv
from lib.documents.metadata.ceq_export import STANDARD, export_ceq
from lib.documents.metadata.evidence import SURE, THRESHOLD
from lib.documents.metadata.explain import NOT_FOUND, disagreements, from_the_body
from lib.documents.metadata.explain import rows as panel_rows
from lib.documents.metadata.extraction import COVER_PAGES, extract, read_or_none
from lib.documents.metadata.fields import (
    DOCUMENT_TYPES,
    FEDERAL_AGENCIES,
    FIELD_LABELS,
    FIELDS,
    LIST_FIELDS,
    PROCESS_TYPES,
    SOURCE_LABELS,
    SOURCES,
    STATES,
    TAGS,
    FieldValue,
    canonical_agency,
    entry_agencies,
    list_of,
    normalize,
    text_of,
    value_of,
    year_of,
)
from lib.documents.metadata.fill import fill_with_model
from lib.documents.metadata.layout import mend_words
from lib.documents.metadata.patterns import classify, place_only, project_title_from
from lib.documents.metadata.query import (
    FILTER_KEYS,
    SORTS,
    citation_name,
    collection_filter,
    display_title,
    parse_where,
    parse_year_range,
    sort_documents,
)
from lib.documents.metadata.records import (
    Metadata,
    cli_metadata,
    delete,
    get,
    get_many,
    missing,
    normalize_tags,
    save_extracted,
    set_values,
    tags_many,
    unsure,
)

__all__ = [
    "COVER_PAGES", "DOCUMENT_TYPES", "FEDERAL_AGENCIES", "FIELDS", "FIELD_LABELS", "FILTER_KEYS", "LIST_FIELDS", "NOT_FOUND",
    "PROCESS_TYPES", "SORTS", "SOURCES", "SOURCE_LABELS", "STANDARD", "STATES", "SURE", "TAGS", "THRESHOLD",
    "FieldValue", "Metadata", "canonical_agency", "entry_agencies",
    "citation_name", "classify", "cli_metadata", "collection_filter", "delete", "disagreements", "display_title", "export_ceq", "from_the_body",
    "extract", "fill_with_model", "manifest_csv", "get", "get_many", "mend_words", "missing", "normalize", "normalize_tags",
    "panel_rows", "parse_where", "parse_year_range", "place_only", "project_title_from", "read_or_none", "save_extracted", "set_values",
    "sort_documents", "tags_many", "list_of", "text_of", "unsure", "value_of", "year_of",
]
