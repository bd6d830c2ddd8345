"""VersiCode's files as actually published: block items masked with <line_mask>, version
constraints that are not pins, `count` wrappers, model outputs stored as a list's repr; and the
ISM/PM VersiCode's own scripts give on such files.

The fixtures under fixtures/published/ are crafted items in the published shapes (the
OpenHands copies VersiCode_block_completion.json and VersiCode_mirgration.json, and the
VersiCode_RAG stackoverflow_line.json with six Llama-3 outputs per item). Their
`model_output_*_clear` fields are what VersiCode's clear_ans.py writes for the raw outputs, and
the expected scores below are what VersiCode's evaluate_line.py / evaluate_block.py
(github.com/wutong8023/VersiCode, util/evaluate) compute on them, run on CPython 3.11 by
bench/versicode_published.py --scripts."""

from __future__ import annotations

import ast
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python import index
from pinbench.metrics.passk import expected_best_at_k
from pinbench.models.base import Sampling
from pinbench.tasks.versicode import loaders, versions
from pinbench.tasks.versicode.model import (
    CompletionTask,
    EditDirection,
    EditTask,
    Granularity,
    Lifespan,
    MetaInstance,
    Source,
    Transition,
)
from pinbench.tasks.versicode.task import VersiCodeTask
from pinbench.tasks.versicode.task import items_of as versicode_items

PUBLISHED = Path(__file__).parent / "fixtures" / "published"
BLOCK = PUBLISHED / "VersiCode_block_completion.json"
LINE = PUBLISHED / "stackoverflow_line.json"
MIGRATION = PUBLISHED / "VersiCode_mirgration.json"

# VersiCode's scripts on the fixtures' cleared outputs: id -> metric -> k -> score
THEIRS: dict[str, dict[str, dict[int, float]]] = {
    "stackoverflow_line_1": {"ism": {1: 0.5, 3: 0.95}, "pm": {1: 1 / 3, 3: 0.8}},
    "stackoverflow_line_2": {"ism": {1: 0.5, 3: 0.95}, "pm": {1: 1 / 3, 3: 0.69}},
    "stackoverflow_line_3": {"ism": {1: 2 / 3, 3: 1.0}, "pm": {1: 0.5, 3: 0.95}},
    "stackoverflow_line_4": {"ism": {1: 2 / 3, 3: 1.0}, "pm": {1: 0.375, 3: 0.8}},
    "stackoverflow_line_5": {"ism": {1: 5 / 6, 3: 1.0}, "pm": {1: 0.530555555556, 3: 0.83}},
    "library_source_code_block_1": {"ism": {1: 1 / 3, 3: 0.8}, "pm": {1: 1 / 3, 3: 0.8}},
    "stackoverflow_block_2": {"ism": {1: 2 / 3, 3: 1.0}, "pm": {1: 0.5, 3: 0.95}},
    "old_to_new_101": {"ism": {1: 5 / 6, 3: 1.0}, "pm": {1: 0.694444444444, 3: 0.983333333333}},
    "old_to_new_102": {"ism": {1: 2 / 3, 3: 1.0}, "pm": {1: 0.583333333333, 3: 0.975}},
}
# ... and on whole files, metric -> k -> mean over the items with outputs
THEIRS_FILES = {
    LINE: {"ism": {1: 0.633333333333, 6: 1.0}, "pm": {1: 0.414444444444, 6: 1.0}},
    BLOCK: {"ism": {1: 0.5, 6: 1.0}, "pm": {1: 0.416666666667, 6: 1.0}},
    MIGRATION: {"ism": {1: 0.75, 6: 1.0}, "pm": {1: 0.638888888889, 6: 1.0}},
}


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No package index: loading and string metrics must not need one."""

    def unreachable(name: str) -> list[index.DistFile]:
        raise index.IndexUnavailable(f"offline: {name}")

    monkeypatch.setattr(index, "project_files", unreachable)


def items_of(path: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["data"]
    return data


# --- block items masked with <line_mask> ------------------------------------------------------


def test_block_items_published_with_line_masks_all_load(offline: None) -> None:
    result = loaders.load(BLOCK)
    assert result.issues == []  # the `count` (5) agrees with `data`
    assert len(result.completion) == len(items_of(BLOCK)) == 5
    for task in result.completion:
        assert task.granularity is Granularity.BLOCK
        assert task.mask == "<line_mask>"  # as published, not the paper's <block_mask>
        assert task.restore() == task.meta.code
        assert task.whole_program  # VersiCode's block level: write the code from the text
        assert task.reference == task.meta.code
    first = result.completion[0]
    assert first.answer == "a, b = release_memory(a, b)"  # the core line their CDC reads
    assert (first.api, first.lifespan) == ("release_memory", Lifespan.ADDITION)


def test_a_block_task_is_prompted_and_scored_as_versicode_runs_it(offline: None) -> None:
    task = loaders.load(BLOCK).completion[1]  # pandas>=1.7
    scenario = VersiCodeTask()
    (problem,) = versicode_items([task])
    request = scenario.request(problem, sampling=Sampling(), sample=0, round=0, feedback=None)
    prompt = request.messages[-1].content
    assert "pandas>=1.7" in prompt and "The code of block 2." in prompt
    assert "<line_mask>" not in prompt and "frame.applymap" not in prompt  # no code is shown
    code = task.meta.code
    whole = scenario.score(problem, f"<start>{code}<end>", None)
    assert (whole["em"], whole["ism"], whole["pm"]) == (1.0, 1.0, 1.0)
    assert scenario.program(problem, f"<start>{code}<end>") == code
    core_line = scenario.score(problem, f"<start>{task.answer}<end>", None)
    assert core_line["em"] == 0.0  # the core line alone is not the program
    broken = scenario.score(problem, "<start>frame.applymap(<end>", None)
    assert (broken["ism"], broken["pm"], broken["grammar"]) == (0.0, 0.0, 0.0)  # compile gate


def test_the_marker_is_read_from_the_code_whatever_the_granularity(tmp_path: Path) -> None:
    item = {
        "dependency": "numpy",
        "version": "==1.26.0",
        "code": "import numpy as np\nx = np.trapz([1, 2])\n",
        "masked_code": "import numpy as np\n<line_mask>\n",
        "masked_line": "x = np.trapz([1, 2])",
        "answer": "trapz",
    }
    items = [
        {**item, "granularity": "block", "id": "a"},
        {**item, "id": "stackoverflow_block_7"},  # no granularity: the id names it
        {**item, "id": "b"},  # nothing names it: the marker's
        {**item, "granularity": "token", "id": "c", "masked_code": "x = 1\n"},
        {**item, "granularity": "block", "id": "d", "masked_code": "<token_mask><line_mask>"},
    ]
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({"data": items}), encoding="utf-8")
    result = loaders.load(path)
    assert [(t.id, t.granularity, t.mask) for t in result.completion] == [
        ("a", Granularity.BLOCK, "<line_mask>"),
        ("stackoverflow_block_7", Granularity.BLOCK, "<line_mask>"),
        ("b", Granularity.LINE, "<line_mask>"),
    ]
    assert [issue.reason for issue in result.issues] == [
        "item 3: masked_code holds no mask (<token_mask>, <line_mask>, <block_mask>)",
        "item 4: granularity block, and masked_code holds <token_mask>, <line_mask>",
    ]


def test_a_count_that_disagrees_with_the_data_is_reported(tmp_path: Path) -> None:
    document = json.loads(BLOCK.read_text(encoding="utf-8"))
    document["count"] = 1561
    path = tmp_path / "VersiCode_block_completion.json"
    path.write_text(json.dumps(document, indent=4), encoding="utf-8")
    result = loaders.load(path)
    assert len(result.completion) == 5  # still read
    assert [str(issue) for issue in result.issues] == [
        f"{path}:1: 'count' is 1561 but 'data' holds 5 items"
    ]


# --- version constraints ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "pin", "constraint"),
    [
        ("==1.2.3", "1.2.3", None),
        ("1.2.3", "1.2.3", None),  # bare
        ("==1.1.0 ", "1.1.0", None),  # a trailing blank, as published
        ("===2.0", "2.0", None),
        ("==2.0beta", "2.0beta", None),  # pre-releases, kept as written
        ("==4.0.01a", "4.0.01a", None),
        ("==1.1.dev0", "1.1.dev0", None),
        ("==1.2.3.4", "1.2.3.4", None),
        ("v1.2", "1.2", None),
        ("<0.25", None, "<0.25"),
        ("<0.23", None, "<0.23"),
        (">0.11", None, ">0.11"),
        (">=1.2", None, ">=1.2"),
        ("<=0.12.7", None, "<=0.12.7"),
        ("!=1.5", None, "!=1.5"),
        ("~=1.4.2", None, "~=1.4.2"),
        ("==1.2.*", None, "==1.2.*"),
        ("==1.x", None, "==1.*"),  # VersiCode's wildcards
        ("==2.0.x", None, "==2.0.*"),
        ("==3.x.x", None, "==3.*"),
        ("1.X", None, "==1.*"),
        (">2.0.x", None, ">2.0"),  # after an ordering operator the wildcard goes
        (">=1.x", None, ">=1"),
        (">=0.4..0", None, ">=0.4.0"),  # a doubled dot
        (">=1.2,<2", None, "<2,>=1.2"),  # ranges
        (">= 1.2, < 2.0", None, "<2.0,>=1.2"),
        (">=1.2;<2", None, "<2,>=1.2"),
    ],
)
def test_version_fields_read_as_pins_or_constraints(
    raw: str, pin: str | None, constraint: str | None
) -> None:
    assert versions.parse(raw) == versions.Requirement(pin=pin, constraint=constraint)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("latest", "'latest' is not a version"),
        ("", "is empty"),
        ("  ", "is empty"),
        (",", "holds no version"),
        ("x", "names no release"),
        ("==", "'' is not a version"),
        (">=abc", "'abc' is not a version"),
        ("~=1", "is not a version constraint"),
    ],
)
def test_version_fields_that_are_neither_say_why(raw: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        versions.parse(raw)


def test_every_constraint_shape_loads_offline(offline: None) -> None:
    result = loaders.load(LINE)
    assert result.issues == []
    metas = {t.id: t.meta for t in result.completion}
    assert len(metas) == len(items_of(LINE)) == 8
    assert {i: (m.version, m.constraint) for i, m in metas.items()} == {
        "stackoverflow_line_1": (None, "<0.25"),
        "stackoverflow_line_2": (None, "==2.*"),
        "stackoverflow_line_3": (None, ">0.11"),
        "stackoverflow_line_4": (None, ">=1.20.0"),
        "stackoverflow_line_5": ("1.3", None),
        "stackoverflow_line_6": (None, ">=0.4.0"),
        "stackoverflow_line_7": ("2.0beta", None),
        "stackoverflow_line_8": ("1.2.3", None),
    }
    assert metas["stackoverflow_line_1"].requirement == "pandas<0.25"
    block = {t.id: t.meta for t in loaders.load(BLOCK).completion}
    assert [(m.version, m.constraint) for m in block.values()] == [
        ("0.16.0", None),
        (None, ">=1.7"),
        ("1.1.0", None),
        (None, ">2.0"),
        (None, "<=0.12.7"),
    ]


def test_a_constraint_is_prompted_as_published_and_kept_as_the_version(offline: None) -> None:
    task = next(t for t in loaders.load(LINE).completion if t.id == "stackoverflow_line_1")
    # not executable (no test): nothing is asked of the index
    (problem,) = versicode_items([task])
    request = VersiCodeTask().request(
        problem, sampling=Sampling(), sample=0, round=0, feedback=None
    )
    assert "written for pandas<0.25." in request.messages[-1].content
    assert "<line_mask>" in request.messages[-1].content
    assert problem.meta.version == "<0.25" and problem.env is None and not problem.executable
    assert problem.meta.breakdowns == {
        "source": "stackoverflow", "lifespan": "unknown", "granularity": "line"
    }  # fmt: skip


def meta_on(constraint: str | None, version: str | None = None, **more: Any) -> MetaInstance:
    return MetaInstance(
        library="pandas",
        version=version,
        constraint=constraint,
        code="import pandas as pd\nprint(pd.__version__)\n",
        **more,
    )


def test_a_meta_instance_needs_a_version_or_a_constraint_it_satisfies() -> None:
    assert meta_on("<0.25", "0.24.2").requirement == "pandas<0.25"
    assert meta_on(None, "0.24.2").requirement == "pandas==0.24.2"
    with pytest.raises(ValueError, match="needs a version or a constraint"):
        meta_on(None)
    with pytest.raises(ValueError, match=r"version 0\.25\.0 is not <0\.25"):
        meta_on("<0.25", "0.25.0")
    with pytest.raises(ValueError, match="not a PEP 440 specifier"):
        meta_on("latest")


def executable_task(constraint: str) -> CompletionTask:
    test = TestSpec(kind=TestKind.SCRIPT, code="import pandas\n")
    meta = meta_on(constraint, test=test, description="Print the version.")
    return CompletionTask(
        id="constrained",
        meta=meta,
        granularity=Granularity.TOKEN,
        masked_code="import pandas as pd\nprint(pd.<token_mask>)\n",
        answer="__version__",
        api="__version__",
        masked_line="print(pd.__version__)",
    )


def test_execution_runs_on_the_release_chosen_inside_the_constraint() -> None:
    asked: list[tuple[str, str]] = []

    def choose(library: str, constraint: str) -> str:
        asked.append((library, constraint))
        return "0.24.2"

    (problem, again) = versicode_items([executable_task("<0.25")] * 2, choose_release=choose)
    assert asked == [("pandas", "<0.25")]  # asked once
    assert problem.meta.version == again.meta.version == "0.24.2"
    assert "(runs on pandas==0.24.2: newest release <0.25)" in problem.meta.problem
    assert problem.env is not None and problem.env.pins == ("pandas==0.24.2",)
    request = VersiCodeTask().request(
        problem, sampling=Sampling(), sample=0, round=0, feedback=None
    )
    assert "pandas<0.25" in request.messages[-1].content  # the task is still the constraint's


def test_without_an_answer_from_the_index_the_environment_pins_the_specifier() -> None:
    def choose(library: str, constraint: str) -> str:
        raise LookupError("cannot reach the package index for pandas")

    (problem,) = versicode_items([executable_task("<0.25")], choose_release=choose)
    assert problem.meta.version == "<0.25"
    assert "cannot reach the package index" in problem.meta.problem
    assert problem.env is not None
    assert problem.env.pins == ("pandas<0.25",)  # uv resolves it itself


def dist(version: str) -> index.DistFile:
    uploaded = datetime(2020, 1, 1, tzinfo=UTC)
    return index.DistFile(f"pandas-{version}.tar.gz", Version(version), uploaded, None, None)


def test_the_newest_release_inside_a_constraint_comes_from_the_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    released = ["0.23.4", "0.24.2", "0.24.1", "0.25.0rc0", "0.25.0", "1.0.0", "1.5.3", "2.0.0b1"]
    monkeypatch.setattr(index, "project_files", lambda name: [dist(v) for v in released])
    assert versions.newest_release("pandas", "<0.25") == "0.24.2"  # not the 0.25 candidate
    assert versions.newest_release("pandas", "==1.*") == "1.5.3"
    assert versions.newest_release("pandas", ">0.11") == "1.5.3"  # finals before a beta
    assert versions.newest_release("pandas", ">=2.0.0b1") == "2.0.0b1"  # it names one
    with pytest.raises(LookupError, match=r"no release of pandas .* is <0\.20"):
        versions.newest_release("pandas", "<0.20")

    def unreachable(name: str) -> list[index.DistFile]:
        raise index.IndexUnavailable("offline")

    monkeypatch.setattr(index, "project_files", unreachable)
    with pytest.raises(LookupError, match="offline"):
        versions.newest_release("pandas", "<0.25")


# --- editing ----------------------------------------------------------------------------------


def test_migration_items_load_with_each_side_s_lifespan(offline: None) -> None:
    result = loaders.load(MIGRATION)
    assert result.issues == [] and len(result.editing) == 2
    task = result.editing[0]
    assert task.direction is EditDirection.OLD_TO_NEW  # edit_order
    assert task.transition is Transition.MINOR_TO_MINOR
    assert (task.old.api, task.new.api) == ("beta_expander", "expander")
    # type "name_change": the old side uses the name that went away, the new one what came
    assert (task.old.lifespan, task.new.lifespan) == (Lifespan.DEPRECATION, Lifespan.ADDITION)
    assert task.source is Source.LIBRARY_SOURCE_CODE


# --- ISM/PM against VersiCode's scripts -------------------------------------------------------


def scored(path: Path) -> list[tuple[CompletionTask | EditTask, list[str]]]:
    loaded = loaders.load(path)
    tasks = {t.id: t for t in [*loaded.completion, *loaded.editing]}
    return [
        (tasks[item["id"]], ast.literal_eval(item["model_output"]))
        for item in items_of(path)
        if "model_output" in item
    ]


@pytest.mark.parametrize("path", [LINE, BLOCK, MIGRATION], ids=lambda p: p.stem)
def test_ism_and_pm_per_item_are_versicode_s(path: Path, offline: None) -> None:
    pairs = scored(path)
    scenario = VersiCodeTask()
    problems = {p.id: p for p in versicode_items([task for task, _ in pairs])}
    for task, outputs in pairs:
        rows = [scenario.score(problems[task.id], text, None) for text in outputs]
        for metric, by_k in THEIRS[task.id].items():
            for k, expected in by_k.items():
                got = expected_best_at_k([row[metric] for row in rows], k)
                assert got == pytest.approx(expected, abs=1e-9), (task.id, metric, k)


@pytest.mark.parametrize("published", [False, True], ids=["jsonl", "published-file"])
@pytest.mark.parametrize("path", [LINE, BLOCK, MIGRATION], ids=lambda p: p.stem)
def test_a_replayed_run_reproduces_versicode_s_file_scores(
    path: Path, published: bool, tmp_path: Path, offline: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pinbench run -m replay:` end to end on the items with outputs, without network: from
    pinbench's JSONL rows, or from the published file itself (`-d FILE -m replay:FILE`, its
    `model_output` read as published and its gold `answer` never taken as a reply)."""
    built: list[object] = []
    monkeypatch.setattr("pinbench.envs.ensure", lambda spec: built.append(spec))
    pairs = scored(path)
    answers = path if published else tmp_path / "answers.jsonl"
    if not published:
        answers.write_text(
            "".join(json.dumps({"id": t.id, "response": outputs}) + "\n" for t, outputs in pairs),
            encoding="utf-8",
        )
    editing = isinstance(pairs[0][0], EditTask)
    only = [arg for task, _ in pairs for arg in ("--only", task.id)]
    out = tmp_path / "run.json"
    result = CliRunner().invoke(
        app,
        ["run", "--task", "editing" if editing else "completion", "-d", str(path),
         "-m", f"replay:{answers}", "-n", "6", "-k", "1,6", *only,
         "--results", str(tmp_path / "results"), "--json", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert built == []  # no test: nothing executed, no environment built
    document = json.loads(out.read_text())
    scores = document["summary"]["scores"]
    assert scores["samples"] == 6 * len(pairs)
    assert {s["outcome"] for s in document["samples"]} == {"generated"}
    for metric, by_k in THEIRS_FILES[path].items():
        got = {entry["k"]: entry["mean"] for entry in scores["strings"][metric]}
        assert got == pytest.approx(by_k, abs=1e-9), metric
