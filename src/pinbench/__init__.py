"""pinbench: execution-based evaluation of code models on pinned library versions."""

__version__ = "0.1.0"
