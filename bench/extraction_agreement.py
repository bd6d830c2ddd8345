"""Does pinbench run the program GitChameleon 2.0's harness ran, on published model answers?

GitChameleon's published harness (gitchameleon/run_eval.py) takes the first ```python block,
closed by the next ``` wherever it stands, else the whole answer. pinbench's extraction
(src/pinbench/prompts/extract.py) is what `pinbench run -m replay:` executes. This script runs
both on every answer of every `*_eval_results.jsonl` under RESULTS and reports, per model, the
answers whose programs differ (modulo surrounding whitespace, or the same syntax tree) and how
many of those the authors graded passing (their hidden-test verdict), then the differences by
the answer's quirk. See docs/extraction.md for the differences pinbench keeps on purpose.

Usage: uv run python bench/extraction_agreement.py RESULTS DATASET [--show QUIRK]
  RESULTS  a directory of published results, e.g. GitChameleon's self_debug_data/
  DATASET  the GitChameleon 2.0 dataset directory (dataset.jsonl, hidden_tests/)
  --show   print each differing answer of that quirk (or 'all') with both programs
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pinbench.models.replay import read_answers
from pinbench.tasks.answers import compiles
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.generation.task import GenerationTask, item_of

_GC_BLOCK = re.compile(r"```python(.*?)```", re.DOTALL)  # run_eval.py's extract_code, verbatim
_FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$", re.MULTILINE)


def gitchameleon_extract(text: str) -> str:
    """GitChameleon 2.0's extraction, as published (its `except` branch never runs)."""
    match = _GC_BLOCK.search(text)
    return match.group(1) if match else text


# --- how two programs relate ----------------------------------------------------------------


def _tree(code: str) -> list[str] | None:
    """The module's statements, dumped, or None when it does not parse."""
    try:
        return [ast.dump(node) for node in ast.parse(code).body]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def equivalent(a: str, b: str) -> bool:
    """Same text after stripping surrounding whitespace, or the same syntax tree."""
    if a.strip() == b.strip():
        return True
    tree = _tree(a)
    return tree is not None and tree == _tree(b)


def only_imports_added(theirs: str, ours: str) -> bool:
    """`ours` is `theirs` with import statements added (pinbench restores the starter's)."""
    base, extended = _tree(theirs), _tree(ours)
    if base is None or extended is None or not base:
        return False
    found = 0
    for node, dumped in zip(ast.parse(ours).body, extended, strict=True):
        if found < len(base) and dumped == base[found]:
            found += 1
        elif not isinstance(node, ast.Import | ast.ImportFrom):
            return False
    return found == len(base)


def keeps_every_line(theirs: str, ours: str) -> bool:
    """Each non-blank line of `theirs` is inside a line of `ours`, in order: pinbench put a
    body-only answer back into the starter (indenting it, continuing an open line)."""
    lines = iter(line.strip() for line in ours.split("\n"))
    wanted = [line.strip() for line in theirs.split("\n") if line.strip()]
    return bool(wanted) and all(any(w in line for line in lines) for w in wanted)


def relation(theirs: str, ours: str) -> str:
    """'same', or how pinbench's program differs: one of its documented repairs, or not."""
    if equivalent(theirs, ours):
        return "same"
    if compiles(theirs) and compiles(ours) and only_imports_added(theirs, ours):
        return "imports added"
    if compiles(ours) and keeps_every_line(theirs, ours):
        return "put into starter"
    return "differ"


def status(program: str) -> str:
    """'ok' (compiles), 'empty' (no code at all) or 'error' (does not compile)."""
    if not program.strip():
        return "empty"
    return "ok" if compiles(program) else "error"


# --- what is odd about the answer -----------------------------------------------------------


def quirk(text: str) -> str:
    """The answer's first oddity, in the order that decides what GitChameleon's regex sees."""
    if "```python" not in text:
        return _untagged_quirk(text)
    match = _GC_BLOCK.search(text)
    if match is None:
        tail = text.rstrip()
        return "truncated fence" if tail.endswith("`") else "unclosed fence"
    before, after = text[: match.end(1)], text[match.end() :]
    line_end = after.split("\n", 1)[0]
    if "\n" not in match.group(1) and "\\n" in match.group(1):
        return "escaped newlines"
    if before.rsplit("\n", 1)[-1].strip():
        return "fence glued to code"
    if line_end.strip().strip("`"):
        return "stray text after fence"
    if text[match.start(1) :].split("\n", 1)[0].strip():
        return "text after ```python"
    if len(_GC_BLOCK.findall(text)) > 1 or len(_FENCE_LINE.findall(text)) > 2:
        return "several blocks"
    if re.search(r"^[ \t]+```python", text, re.MULTILINE):
        return "indented fence"
    if "\r" in text:
        return "crlf"
    if text[match.end() :].strip():
        return "prose after code"
    return "plain block"


def _untagged_quirk(text: str) -> str:
    fences = _FENCE_LINE.findall(text)
    if not fences:
        return "single backtick" if text.strip().startswith("`") else "no fence"
    info = next((rest.strip() for _, rest in fences if rest.strip()), "")
    if not info:
        return "untagged fence"
    return f"other tag ({info.split()[0].lower()[:10]})"


# --- the comparison -------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    model: str
    example_id: str
    passed: bool  # the authors' hidden-test verdict
    quirk: str
    theirs: str
    ours: str

    @cached_property
    def relation(self) -> str:
        return relation(self.theirs, self.ours)


def compare_file(path: Path, problems: list[Problem]) -> list[Answer]:
    """Every answer of one results file, through both extractions; pinbench's through the
    entry point `pinbench run -m replay:PATH` uses (the replay reader, then the generation
    scenario's extraction)."""
    by_id = {p.id: item_of(p) for p in problems}
    texts = read_answers(path, list(by_id))
    verdicts = _verdicts(path)
    scenario = GenerationTask()
    answers = []
    for (problem_id, sample, _round), text in sorted(texts.items()):
        example_id = problem_id.removeprefix("gc2-")
        passed = verdicts.get((example_id, sample), False)
        ours = scenario.program(by_id[problem_id], text)
        theirs = gitchameleon_extract(text)
        answers.append(Answer(_model(path), example_id, passed, quirk(text), theirs, ours))
    return answers


def _verdicts(path: Path) -> dict[tuple[str, int], bool]:
    """(example id, its n-th row) -> the authors' `passed` ('True'/'False' strings or bools)."""
    seen: Counter[str] = Counter()
    verdicts = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            example = str(row["example_id"])
            verdicts[(example, seen[example])] = str(row.get("passed")).lower() == "true"
            seen[example] += 1
    return verdicts


def _model(path: Path) -> str:
    name = path.name.removesuffix("_eval_results.jsonl").removeprefix("responses_0.0_True_")
    return name.removesuffix("_655").removesuffix("_t0").removeprefix("t0_")


# --- reporting ------------------------------------------------------------------------------


def model_table(answers: list[Answer]) -> list[str]:
    """Per model: differing answers (and the authors' passes among them), split into
    pinbench's repairs and the rest by which side compiles."""
    head = (
        f"{'model':<40}{'n':>5}{'differ':>8}{'pass':>6}{'repair':>8}{'pass':>6}"
        f"{'gc-only':>9}{'pass':>6}{'pb-only':>9}{'other':>7}{'pass':>6}"
    )
    lines = [head, "-" * len(head)]
    models = sorted({a.model for a in answers})
    for model in [*models, "all"]:
        rows = [a for a in answers if model in ("all", a.model)]
        lines.append(f"{model:<40}{len(rows):>5}" + "".join(f"{v:>{w}}" for v, w in _cells(rows)))
    return lines


def _cells(rows: list[Answer]) -> list[tuple[int, int]]:
    differ = [a for a in rows if a.relation != "same"]
    repair = [a for a in differ if a.relation != "differ"]
    rest = [a for a in differ if a.relation == "differ"]
    gc_only = [a for a in rest if status(a.theirs) == "ok" and status(a.ours) != "ok"]
    pb_only = [a for a in rest if status(a.ours) == "ok" and status(a.theirs) != "ok"]
    other = [a for a in rest if a not in gc_only and a not in pb_only]

    def passing(group: list[Answer]) -> int:
        return sum(a.passed for a in group)

    return [
        (len(differ), 8),
        (passing(differ), 6),
        (len(repair), 8),
        (passing(repair), 6),
        (len(gc_only), 9),
        (passing(gc_only), 6),
        (len(pb_only), 9),
        (len(other), 7),
        (passing(other), 6),
    ]


def quirk_table(answers: list[Answer]) -> list[str]:
    """Per quirk, over all models: how many answers have it, how many differ, and how."""
    head = f"{'quirk':<28}{'answers':>8}{'differ':>8}{'pass':>6}  how (gitchameleon/pinbench: n)"
    lines = [head, "-" * len(head)]
    for name, total in Counter(a.quirk for a in answers).most_common():
        differ = [a for a in answers if a.quirk == name and a.relation != "same"]
        how = Counter(
            a.relation if a.relation != "differ" else f"{status(a.theirs)}/{status(a.ours)}"
            for a in differ
        )
        shown = ", ".join(f"{k}: {v}" for k, v in how.most_common())
        passing = sum(a.passed for a in differ)
        lines.append(f"{name:<28}{total:>8}{len(differ):>8}{passing:>6}  {shown}")
    return lines


def show(answers: list[Answer], wanted: str) -> None:
    for a in answers:
        if a.relation == "same" or wanted not in ("all", a.quirk):
            continue
        print(f"=== {a.model} #{a.example_id} [{a.quirk}] {a.relation} passed={a.passed}")
        print(f"--- gitchameleon ({status(a.theirs)})\n{a.theirs.strip()}")
        print(f"--- pinbench ({status(a.ours)})\n{a.ours.strip()}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--show", metavar="QUIRK")
    args = parser.parse_args()
    problems = load_dataset(args.dataset).problems
    files = sorted(args.results.rglob("*_eval_results.jsonl"))
    if not files:
        parser.error(f"no *_eval_results.jsonl under {args.results}")
    answers = [a for path in files for a in compare_file(path, problems)]
    if args.show:
        show(answers, args.show)
    print("\n".join(model_table(answers)))
    print()
    print("\n".join(quirk_table(answers)))
    print(
        "\ndiffer: not the same program (modulo surrounding whitespace or same syntax tree); "
        "pass: the authors graded it passing;\nrepair: pinbench only added the starter's imports "
        "or put a body-only answer into the starter; gc-only / pb-only: only that side's "
        "program compiles;\nother: both compile or neither; gitchameleon/pinbench status: "
        "ok (compiles), error, empty (no code)"
    )


if __name__ == "__main__":
    main()
