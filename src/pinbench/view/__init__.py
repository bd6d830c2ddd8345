"""`pinbench view`: a local web app over the results store (runs, breakdowns, plots, every
sample's rounds, comparisons, live progress), served from this package alone, offline."""
