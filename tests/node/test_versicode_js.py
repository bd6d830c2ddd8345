"""VersiCode-style tasks for JavaScript and TypeScript: API uses read with the TypeScript
parser, completion and editing tasks derived from JavaScript problems, their prompts and
string metrics, and execution in the pinned Node environment (a wrong version's API fails)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.core.item import Item
from pinbench.models.base import Sampling
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.versicode.builtin import derive
from pinbench.tasks.versicode.masking import UseKind, find_api_uses
from pinbench.tasks.versicode.model import EditDirection, Granularity
from pinbench.tasks.versicode.task import VersiCodeTask, item_of
from tests.models.fault_server import FaultServer

SNIPPET = """'use strict';
const qs = require('qs');
import moment from 'moment';
import { format as fmt, parseISO } from 'date-fns';
const { orderBy } = require('lodash');

function f(obj) {
  const label = '\U0001f600 ok';
  const d = moment.duration(5).humanize(true, { h: 24 });
  return qs.stringify(obj, { allowDots: true }) + fmt(parseISO('2020'), 'yyyy') + moment().year();
}
"""

SOLUTION = """const _ = require('lodash');

/** Sort users by age descending, then name ascending. */
function rank(users) {
  const ranked = _.orderBy(users, ['age', 'name'], ['desc', 'asc']);
  return ranked;
}

module.exports = { rank };
"""
CONTRAST = SOLUTION.replace("_.orderBy(", "_.sortByOrder(")
TEST = """const { rank } = require('./solution');
test('ranks', () => {
  const users = [{ name: 'b', age: 3 }, { name: 'a', age: 3 }, { name: 'c', age: 9 }];
  expect(rank(users).map((u) => u.name)).toEqual(['c', 'a', 'b']);
});
"""


def _problem() -> Problem:
    return Problem.model_validate(
        {
            "id": "lodash-4.17-99",
            "language": "javascript",
            "library": "lodash",
            "version": "4.17.21",
            "node_version": "16.20.2",
            "problem": "Rank users by age (descending), then name (ascending).",
            "starter_code": "const _ = require('lodash');\nfunction rank(users) {}\n",
            "solution": SOLUTION,
            "hidden_test": {"kind": "jest", "code": TEST, "module": "solution"},
            "change": {"category": "function_name_change"},
            "release_date": "2021-02",
            "tags": ["api:lodash.orderBy"],
            "contrast": {"version": "3.10.1", "solution": CONTRAST},
        }
    )


def test_api_uses_follow_require_and_import_bindings() -> None:
    uses = {(u.kind, u.qualname) for u in find_api_uses(SNIPPET, "moment", "javascript")}
    assert (UseKind.CALL, "moment.duration") in uses
    assert (UseKind.CALL, "moment.duration().humanize") in uses
    assert (UseKind.KEYWORD, "moment.duration().humanize({h})") in uses
    assert (UseKind.CALL, "moment") in uses  # calling the module itself is a use
    assert (UseKind.CALL, "moment().year") in uses
    assert (UseKind.CALL, "?.stringify") in uses  # another library's: unresolved
    dates = {(u.kind, u.qualname, u.name) for u in find_api_uses(SNIPPET, "date-fns", "js")}
    assert (UseKind.IMPORT, "date-fns.format", "format") in dates
    assert (UseKind.CALL, "date-fns.format", "fmt") in dates  # the alias is the same API
    lodash = [u for u in find_api_uses(SNIPPET, "lodash", "javascript") if u.resolved]
    assert [(u.kind, u.qualname) for u in lodash] == [(UseKind.IMPORT, "lodash.orderBy")]
    keywords = [
        u.qualname
        for u in find_api_uses(SNIPPET, "qs", "javascript")
        if u.kind is UseKind.KEYWORD and u.resolved
    ]
    assert keywords == ["qs.stringify({allowDots})"]


def test_spans_are_code_points_after_astral_characters() -> None:
    for use in find_api_uses(SNIPPET, "qs", "javascript"):
        start, end = use.token
        assert SNIPPET[start:end] == use.name  # the emoji is two UTF-16 units, one code point
        line = SNIPPET[use.line[0] : use.line[1]]
        assert use.name in line and line == line.strip() and "\n" not in line
        assert SNIPPET[use.block[0] : use.block[1]].startswith("const label")


def test_a_snippet_that_does_not_parse_is_a_syntax_error() -> None:
    with pytest.raises(SyntaxError) as raised:
        find_api_uses("const x = ;\n", "qs", "javascript")
    assert raised.value.lineno == 1


def test_tasks_mask_the_renamed_api_and_pair_both_versions() -> None:
    derived = derive([_problem()])
    tasks = {t.granularity: t for t in derived.completion}
    assert tasks[Granularity.TOKEN].answer == "orderBy"
    assert tasks[Granularity.LINE].answer.startswith("const ranked = _.orderBy(users")
    block = tasks[Granularity.BLOCK]
    assert block.answer.startswith("const ranked") and block.answer.endswith("return ranked;")
    assert block.restore() == SOLUTION
    assert tasks[Granularity.TOKEN].meta.language == "javascript"
    directions = {t.direction: t for t in derived.editing}
    old_to_new = directions[EditDirection.OLD_TO_NEW]
    assert old_to_new.from_meta.version == "3.10.1" and old_to_new.to_meta.code == SOLUTION
    assert old_to_new.from_meta.node_version == "16.20.2"


def _item(granularity: Granularity) -> Item[object]:
    task = next(t for t in derive([_problem()]).completion if t.granularity is granularity)
    return item_of(task)


def test_prompts_environment_and_metrics_are_javascripts() -> None:
    item = _item(Granularity.TOKEN)
    assert item.env is not None and item.env.toolchain == "node"
    assert item.env.version == "16.20.2" and "lodash@4.17.21" in item.env.pins
    task = VersiCodeTask()
    request = task.request(item, sampling=Sampling(), sample=0, round=0, feedback=None)
    text = "\n".join(m.content for m in request.messages)
    assert "JavaScript" in text and "```javascript" in text and "lodash@4.17.21" in text
    assert "Python" not in text
    right = task.score(item, "<start>orderBy<end>", None)
    assert right == {"em": 1.0, "ism": 1.0, "pm": 1.0, "grammar": True}
    wrong = task.score(item, "<start>sortByOrder<end>", None)
    assert wrong["em"] == 0.0 and wrong["ism"] == 0.0  # the core name gates ISM (VersiCode)
    broken = task.score(item, "<start>orderBy(<end>", None)
    assert broken["grammar"] is False  # the program it makes does not parse


@pytest.mark.integration
def test_completions_execute_in_the_pinned_node_and_the_old_api_fails(tmp_path: Path) -> None:
    dataset = tmp_path / "problems.jsonl"
    dataset.write_text(_problem().model_dump_json() + "\n")
    base = ["run", "--task", "completion", "-d", str(dataset), "--split", "js"]
    base += ["--granularity", "token", "--results", str(tmp_path / "results")]
    out = tmp_path / "reference.json"
    result = CliRunner().invoke(app, [*base, "-m", "reference", "--json", str(out)])
    assert result.exit_code == 0, result.output
    (sample,) = json.loads(out.read_text())["samples"]
    assert sample["outcome"] == "passed", sample
    with FaultServer(answers={"<token_mask>": "<start>sortByOrder<end>"}) as server:
        out = tmp_path / "old.json"
        args = [*base, "-m", "openai:m", "--base-url", server.url, "--json", str(out)]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (sample,) = json.loads(out.read_text())["samples"]
    assert sample["outcome"] == "failed" and sample["metrics"]["em"] == 0.0, sample
