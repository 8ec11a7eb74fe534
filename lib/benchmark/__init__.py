"""NEPAQuAD-style benchmarks: import, generate, run and score."""
