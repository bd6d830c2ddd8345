"""Named protocols of the GitChameleon papers; explicit flags override a preset's values."""

from __future__ import annotations

from typing import Any

_SAMPLED = {"top_p": 0.95, "top_k": 50, "max_tokens": 256}

PRESETS: dict[str, dict[str, Any]] = {
    "greedy": {"temperature": 0.0, "n": 1, "k": (1,), "seeds": 1},
    "pass@1": {"temperature": 0.3, "n": 5, "k": (1,), "seeds": 5, **_SAMPLED},
    "pass@10": {"temperature": 0.8, "n": 20, "k": (1, 10), "seeds": 5, **_SAMPLED},
    "feedback": {"temperature": 0.0, "n": 1, "k": (1,), "feedback_rounds": 1},
    "docs": {"temperature": 0.0, "n": 1, "k": (1,), "doc_prompting": True},
    "cot": {"temperature": 0.0, "n": 1, "k": (1,), "cot": True},
}
DESCRIPTIONS = {
    "greedy": "greedy decoding, pass@1",
    "pass@1": "T=0.3, top_p 0.95, top_k 50, n=5, pass@1, 5 seeds (mean ± std)",
    "pass@10": "T=0.8, top_p 0.95, top_k 50, n=20, pass@1 and pass@10, 5 seeds",
    "feedback": "greedy, then one error-feedback round from the visible test",
    "docs": "greedy with doc-prompting (the problem's API docs in the prompt)",
    "cot": "greedy with zero-shot chain of thought",
}
