"""Reports from the store alone: the terminal summary, the self-contained HTML report, JSON and
CSV exports, and the comparison of runs."""
