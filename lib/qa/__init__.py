"""Question answering: one question, several models × context modes (none, full PDF, RAG, gold), the contexts
cut to each model's window, numbered citations, the Ask history, the run manifests that say what every answer was
made with, and the support check of each answer's sentences against its sources (``support``, offline, with its
fitted classifier and what its marks are worth in ``support_model``; ``support_judge``, a connected model)."""
from lib.qa import ask, citations, manifest, support, support_judge, support_model
from lib.qa.ask import VERDICT_SOURCES, AskResult, ask_grid, load_batch, load_history, save_history, scope_ids
from lib.qa.contexts import MODE_LABELS, MODES

# ``ask`` is the module (ask.ask answers one cell), so its name is never rebound to the function.
__all__ = ["MODES", "MODE_LABELS", "VERDICT_SOURCES", "AskResult", "ask", "ask_grid", "citations", "load_batch", "load_history",
           "manifest", "save_history", "scope_ids", "support", "support_judge", "support_model"]
