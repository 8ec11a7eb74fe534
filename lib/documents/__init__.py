"""Documents: reading one PDF (page text with PyMuPDF, checks that explain bad input, headings), cutting it into
token-sized chunks, keeping its original for citations, rendering a page with a passage highlighted, and its
metadata (``lib.documents.metadata``)."""
from lib.documents import metadata, originals, page_render, tables
from lib.documents.chunking import Chunk, chunk_pages, is_navigation
from lib.documents.pdf import ExtractedPdf, Page, check_pdf_path, read_pdf_file, symbol_bullets

__all__ = ["Chunk", "ExtractedPdf", "Page", "check_pdf_path", "chunk_pages", "is_navigation", "metadata", "originals",
           "page_render", "read_pdf_file", "symbol_bullets", "tables"]
