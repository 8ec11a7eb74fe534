"""Metrics, one module each: a name, the fields it needs, and ``score()`` returning a MetricResult with a
status (never a silent NaN). Scores are stored per answer per metric, so a run can be re-scored."""
