"""What the command line prints does not depend on the width of the terminal or the length of
a path: every error and warning is one line (on a 40-column terminal too, where the terminal
wraps it, not pinbench), `--help` is not squeezed into 80 columns when it is not read on a
terminal, and tables written to a pipe keep every cell whole.

The error paths run in one child process per kind of output (a pipe, then a 40-column
pseudo-terminal), with COLUMNS=40 and a temporary directory whose path is ~200 characters, as a
CI machine might have them."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.cli.common import HELP_WIDTH

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "sample" / "problems.jsonl"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)")

# Runs each case in this one process (pinbench's start-up is paid once), between markers.
DRIVER = """
import json, sys
from typer.main import get_command
from pinbench.cli import app
command = get_command(app)
for index, args in enumerate(json.loads(sys.argv[1])):
    print(f"@@case {index}", file=sys.stderr, flush=True)
    try:
        command.main(args=args, prog_name="pinbench")
    except SystemExit as exit:
        code = exit.code
    else:
        code = 0
    sys.stdout.flush()
    print(f"@@exit {index} {code}", file=sys.stderr, flush=True)
"""


@pytest.fixture(scope="module")
def long_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / ("long-" + "x" * 150) / ("path-" + "y" * 40)
    path.mkdir(parents=True)
    return path


def _cases(long: Path) -> list[tuple[list[str], str, int]]:
    """(arguments, what must be on one line, exit code)."""
    (long / "unknown.txt").write_text("neither json nor csv\n")
    good = next(line for line in SAMPLE.read_text().splitlines() if "packaging-22.0-01" in line)
    (long / "bad.jsonl").write_text(good + "\n" + '{"id": "broken"}\n')
    res = str(long / "results")
    one = ["-d", str(SAMPLE), "--only", "packaging-22.0-01", "--results", res]
    return [
        (["ide", "collect", f"{long}/missing"], f"error: {long}/missing: no such repository", 2),
        (["validate", f"{long}/unknown.txt"], f"error: {long}/unknown.txt: not a recognised", 2),
        (["datasets", "show", f"{long}/bad.jsonl"], f"skipped: {long}/bad.jsonl:2: ", 0),
        (["datasets", "show", "builtin", "no-such-id"], "error: no problem 'no-such-id' in b", 1),
        (["runs", "show", "nope", "--results", res], "error: no run 'nope' (see `pinbench runs", 2),
        (["drift", "nope", "--results", res], "error: no run 'nope' (see `pinbench runs list`)", 2),
        (["compare", "one", "--results", res], "error: compare needs at least two runs", 2),
        (["envs", "path", "no-such-key"], "error: no environment matches 'no-such-key'", 1),
        (["mine", "packaging"], "error: give exactly one of --versions and --range", 2),
        (["run", "--nope"], "error: No such option: --nope", 2),
        (
            ["run", "--split", "nope"],
            "error: unknown split 'nope' (splits: default, full, quick, js, js-quick)",
            2,
        ),
        (["run", *one, "-n", "2", "-k", "5"], "error: pass@k needs k <= n (k=(5,), n=2)", 2),
        (["run", *one, "-m", "openai:x"], "error: openai models need --base-url (e.g. http", 2),
        (
            [
                "runs",
                "export",
                "latest",
                "-o",
                f"{long}/x.csv",
                "--format",
                "xml",
                "--results",
                res,
            ],
            "error: --format is jsonl or csv, not 'xml'",
            2,
        ),
    ]


def _env(long: Path) -> dict[str, str]:
    return {
        **os.environ,
        "COLUMNS": "40",
        "TMPDIR": str(long),
        "PINBENCH_HOME": str(long / "home"),
        "PYTHONPATH": str(REPO / "src"),
    }


def _by_case(output: str, count: int) -> list[tuple[str, int]]:
    """The output of each case and its exit code."""
    found = []
    for index in range(count):
        start = output.index(f"@@case {index}\n") + len(f"@@case {index}\n")
        end = output.index(f"@@exit {index} ", start)
        code = int(output[end:].split("\n", 1)[0].split()[-1])
        found.append((output[start:end], code))
    return found


def _check(outputs: list[tuple[str, int]], cases: list[tuple[list[str], str, int]]) -> None:
    for (text, code), (args, expected, expected_code) in zip(outputs, cases, strict=True):
        assert code == expected_code, (args, text)
        assert any(expected in line for line in text.splitlines()), (args, expected, text)
        assert "Traceback" not in text and "╭" not in text, (args, text)  # no box either


def test_errors_are_one_line_in_a_pipe_whatever_columns_and_the_path(long_dir: Path) -> None:
    cases = _cases(long_dir)
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps([args for args, _, _ in cases])],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=_env(long_dir),
        timeout=300,
    )
    assert done.returncode == 0, done.stdout
    _check(_by_case(done.stdout, len(cases)), cases)


def test_errors_are_one_line_on_a_40_column_terminal(long_dir: Path) -> None:
    cases = _cases(long_dir)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER, json.dumps([args for args, _, _ in cases])],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=_env(long_dir),
    )
    os.close(follower)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 300)
            if not ready:
                raise AssertionError("no output for 300 s")
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # EIO: the child and every holder of the terminal are gone
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
        process.wait(timeout=60)
    output = ANSI.sub("", b"".join(chunks).decode()).replace("\r\n", "\n")
    assert process.returncode == 0, output
    _check(_by_case(output, len(cases)), cases)


def test_help_is_laid_out_wider_than_80_columns_when_not_on_a_terminal() -> None:
    result = CliRunner().invoke(app, ["run", "--help"], env={"TERMINAL_WIDTH": None})
    assert result.exit_code == 0, result.output
    widths = [len(line.rstrip()) for line in result.output.splitlines()]
    assert 80 < max(widths) <= HELP_WIDTH
    # one option's help in few lines, not a column of words
    assert "Client-side rate limit." in result.output
    narrow = CliRunner().invoke(app, ["run", "--help"], env={"TERMINAL_WIDTH": "60"})
    assert max(len(line.rstrip()) for line in narrow.output.splitlines()) <= 60


def test_a_table_in_a_pipe_keeps_every_cell_whole(long_dir: Path) -> None:
    name = "packaging-22.0-01"
    path = long_dir / "one.jsonl"
    path.write_text(next(line for line in SAMPLE.read_text().splitlines() if name in line) + "\n")
    result = CliRunner().invoke(app, ["datasets", "show", str(path)])
    assert result.exit_code == 0, result.output
    [row] = [line for line in result.output.splitlines() if name in line]
    assert "packaging==22.0" in row
