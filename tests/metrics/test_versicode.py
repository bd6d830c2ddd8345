"""VersiCode's string metrics against hand-computed cases, the @k estimator against brute force
over all k-subsets, the fast algorithms against the definitions they replace, and the lexer's
independence from the interpreter running it."""

from __future__ import annotations

import io
import itertools
import json
import math
import os
import random
import shutil
import subprocess
import sys
import textwrap
import tokenize
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

from pinbench.metrics.passk import expected_best_at_k, pass_at_k
from pinbench.tasks.versicode import metrics as versicode
from pinbench.tasks.versicode.metrics import (
    NO_ANSWER,
    StringScores,
    Variant,
    exact_match,
    extract_answer,
    grammar_ok,
    identifiers,
    ism,
    pm,
    score_answer,
    score_samples,
)

V, C = Variant.VERSICODE, Variant.CORRECTED


@dataclass(frozen=True)
class Case:
    name: str
    variant: Variant
    answer: str
    reference: str
    core: str | None
    verify: bool  # grammar gate: block-level and editing tasks
    em: bool
    ism: float
    pm: float
    grammar: bool


# Derivations: VERSICODE ISM is the longest common *character* prefix over all (reference
# identifier, answer identifier) pairs, over the longer of the first pair reaching it; PM the
# longest common prefix of identifier lists over all (reference line, answer line) pairs, over
# the longer of the first pair reaching it. CORRECTED ISM is LCS / longer, PM is the common prefix
# of the whole sequences / longer, keywords dropped, f-string fields read.
CASES = [
    # [y, np, add, a, b] on both sides: "add" pairs with itself, 3/3; the one line, 5/5.
    Case("identical line", V, "y = np.add(a, b)", "y = np.add(a, b)", "add", False,
         True, 1.0, 1.0, True),
    Case("identical line", C, "y = np.add(a, b)", "y = np.add(a, b)", "add", False,
         True, 1.0, 1.0, True),
    # EM is character for character; a leading blank makes the answer fail to compile.
    Case("token answer with a blank", V, " add", "add", None, False, False, 1.0, 1.0, False),
    Case("token answer with a blank", C, " add", "add", None, False, True, 1.0, 1.0, True),
    Case("line with blanks around", V, " y = np.add(a, b)\n", "y = np.add(a, b)", "add", False,
         False, 1.0, 1.0, False),
    Case("line with blanks around", C, " y = np.add(a, b)\n", "y = np.add(a, b)", "add", False,
         True, 1.0, 1.0, True),
    # Missing tags: "no_answer" contains the core token "answer"; "no_answer" vs "node" shares
    # "no": 2 / max(4, 9). Its one line [no_answer] starts like no reference line: PM 0. It
    # compiles (a bare name). CORRECTED extracts "" instead: 0 everywhere, not grammatical.
    Case("missing tags", V, NO_ANSWER, "node = graph.answer(n)", "answer", False,
         False, 2 / 9, 0.0, True),
    Case("missing tags", C, "", "node = graph.answer(n)", "answer", False,
         False, 0.0, 0.0, False),
    # Keywords are NAME tokens: "return" pairs with itself, 6/6, though x became y. PM: [return,
    # x] vs [return, y], 1/2. compile rejects return outside a function; a parse accepts it.
    Case("keywords", V, "return y", "return x", None, False, False, 1.0, 0.5, False),
    Case("keywords", C, "return y", "return x", None, False, False, 0.0, 0.0, True),
    # The 1.4 API for the 1.3 one: 24 shared characters over the 33 of the longer name. CORRECTED
    # requires the core token itself among the answer's identifiers.
    Case("renamed API", V, "cb = createResolutionCallbackFromFrame(1)",
         "cb = createResolutionCallback(1)", "createResolutionCallback", False,
         False, 24 / 33, 0.5, True),
    Case("renamed API", C, "cb = createResolutionCallbackFromFrame(1)",
         "cb = createResolutionCallback(1)", "createResolutionCallback", False,
         False, 0.0, 0.0, True),
    Case("renamed API, no core token", C, "cb = createResolutionCallbackFromFrame(1)",
         "cb = createResolutionCallback(1)", None, False, False, 0.5, 0.5, True),
    # One shared identifier "np" (2/2) is a perfect ISM; the lines start x vs y: PM 0.
    Case("one shared identifier", V, "y = np.ones(m)", "x = np.zeros(n)", None, False,
         False, 1.0, 0.0, True),
    Case("one shared identifier", C, "y = np.ones(m)", "x = np.zeros(n)", None, False,
         False, 0.25, 0.0, True),
    # The first maximal pair is (abx, ab), not (ab, ab): 2/3 though "ab" is a reference name.
    Case("first pair sets the denominator", V, "ab", "abx = ab", None, False,
         False, 2 / 3, 0.0, True),
    Case("first pair sets the denominator", C, "ab", "abx = ab", None, False,
         False, 0.5, 0.0, True),
    # Unterminated triple quote: tokenize raises, ISM 0. Per line: 'doc = """text' falls back
    # to ['doc', '=', '"""text'] (1 in common with [doc]), but [run, doc] matches: 2/2.
    Case("unterminated triple-quoted string", V, 'doc = """text\nrun(doc)',
         'doc = """text"""\nrun(doc)', None, False, False, 0.0, 1.0, False),
    # CORRECTED: the string runs to the end: [doc] against [doc, run, doc].
    Case("unterminated triple-quoted string", C, 'doc = """text\nrun(doc)',
         'doc = """text"""\nrun(doc)', None, False, False, 1 / 3, 1 / 3, False),
    # 3.11 tokenize: an error token for the quote, then names inside: [print, hello, world].
    # (3.12's tokenize raises instead; the pinned lexer does not.) PM: [print] vs the three.
    Case("unterminated string", V, "print('hello world)", "print('hello world')", None, False,
         False, 1.0, 1 / 3, False),
    Case("unterminated string", C, "print('hello world)", "print('hello world')", None, False,
         False, 1.0, 1.0, False),
    # Inconsistent dedent: tokenize raises, ISM 0; lexed alone each line is fine: [if, x] 2/2.
    Case("bad dedent", V, "if x:\n        y = 1\n    z = 2", "if x:\n    y = 1\nz = 2", None,
         False, False, 0.0, 1.0, False),
    Case("bad dedent", C, "if x:\n        y = 1\n    z = 2", "if x:\n    y = 1\nz = 2", None,
         False, False, 1.0, 1.0, False),
    # ISM: "import" pairs with itself first, 6/6. PM: the identical import line, 4/4. CORRECTED
    # without keywords: [numpy, np, arr, np, zeros, total, arr, sum] and the answer's, 8 each,
    # 6 in common in order (zeros/ones, sum/mean differ); the common prefix stops after 4.
    Case("block, one identical line", V,
         "import numpy as np\narr = np.ones(5)\ntotal = arr.mean()",
         "import numpy as np\narr = np.zeros(3)\ntotal = arr.sum()", None, True,
         False, 1.0, 1.0, True),
    Case("block, one identical line", C,
         "import numpy as np\narr = np.ones(5)\ntotal = arr.mean()",
         "import numpy as np\narr = np.zeros(3)\ntotal = arr.sum()", None, True,
         False, 6 / 8, 4 / 8, True),
    # Lines swapped: any line may pair with any line, so nothing is lost; as one sequence,
    # [a, f, x, b, g, y] vs [b, g, y, a, f, x]: LCS 3 of 6, no common prefix.
    Case("block, lines swapped", V, "b = g(y)\na = f(x)", "a = f(x)\nb = g(y)", None, True,
         False, 1.0, 1.0, True),
    Case("block, lines swapped", C, "b = g(y)\na = f(x)", "a = f(x)\nb = g(y)", None, True,
         False, 0.5, 0.0, True),
    # f-strings are one token before 3.12: [print] vs [print]. CORRECTED reads the fields:
    # [print, df, shape] vs [print, df, size].
    Case("f-string", V, 'print(f"{df.size} rows")', 'print(f"{df.shape[0]} rows")', None,
         False, False, 1.0, 1.0, True),
    Case("f-string", C, 'print(f"{df.size} rows")', 'print(f"{df.shape[0]} rows")', None,
         False, False, 2 / 3, 2 / 3, True),
    # PEP 701 nesting, lexed by 3.11's rules on any interpreter: f"{d[" + k + "]}" -> [print,
    # k]; CORRECTED adds the field's "d": [print, d, k] vs [print, d]. 3.11 rejects it.
    Case("f-string reusing its quotes", V, 'print(f"{d["k"]}")', "print(f\"{d['k']}\")", None,
         False, False, 1.0, 0.5, False),
    Case("f-string reusing its quotes", C, 'print(f"{d["k"]}")', "print(f\"{d['k']}\")", None,
         False, False, 2 / 3, 2 / 3, False),
    # An empty answer compiles (an empty module); CORRECTED does not call it code.
    Case("empty answer", V, "", "x = 1", None, False, False, 0.0, 0.0, True),
    Case("empty answer", C, "", "x = 1", None, False, False, 0.0, 0.0, False),
    # No identifiers at all: an identical answer gets 0 from VERSICODE (no pair to match).
    Case("identical, no identifiers", V, "1 + 2", "1 + 2", None, False, True, 0.0, 0.0, True),
    Case("identical, no identifiers", C, "1 + 2", "1 + 2", None, False, True, 1.0, 1.0, True),
    # A prefix that breaks the syntax: tokenize raises on the open bracket (ISM 0) and the line
    # falls back to ["model.fit(X"] (PM 0). CORRECTED: [model, fit, X], 3 of 5.
    Case("prefix answer, unclosed", V, "model.fit(X", "model.fit(X, y, epochs=10)", "fit",
         False, False, 0.0, 0.0, False),
    Case("prefix answer, unclosed", C, "model.fit(X", "model.fit(X, y, epochs=10)", "fit",
         False, False, 0.6, 0.6, False),
    # The first line of a two-line block: "compute" 7/7, the line 3/3; CORRECTED 3 of 5.
    Case("prefix answer, first line", V, "a = compute(x)", "a = compute(x)\nb = a + 1", None,
         True, False, 1.0, 1.0, True),
    Case("prefix answer, first line", C, "a = compute(x)", "a = compute(x)\nb = a + 1", None,
         True, False, 0.6, 0.6, True),
    # Extra lines cost nothing line by line; as one sequence 3 of 7.
    Case("answer with extra lines", V, "a = compute(x)\nprint(a)\nlog(a)", "a = compute(x)",
         None, False, False, 1.0, 1.0, True),
    Case("answer with extra lines", C, "a = compute(x)\nprint(a)\nlog(a)", "a = compute(x)",
         None, False, False, 3 / 7, 3 / 7, True),
    # "add" is a substring of "add_docstring": the gate passes; 3 characters of 13. PM: [np,
    # add, a, b] vs [np, add_docstring, a, b], 1/4. CORRECTED looks for the name "add".
    Case("core token as a substring", V, "np.add_docstring(a, b)", "np.add(a, b)", "add", False,
         False, 3 / 13, 0.25, True),
    Case("core token as a substring", C, "np.add_docstring(a, b)", "np.add(a, b)", "add", False,
         False, 0.0, 0.0, True),
    # The core token only in a comment passes the substring gate: np 2/2; [np, subtract, a, b]
    # vs [np, add, a, b] 1/4 (the comment line has no names).
    Case("core token in a comment", V, "# use np.add here\nnp.subtract(a, b)", "np.add(a, b)",
         "add", False, False, 1.0, 0.25, True),
    Case("core token in a comment", C, "# use np.add here\nnp.subtract(a, b)", "np.add(a, b)",
         "add", False, False, 0.0, 0.0, True),
    # An identical method-body fragment under the grammar gate: compile fails on the indent
    # (VERSICODE scores 0); dedented it parses.
    Case("indented block, grammar gate", V, "    return g(x)", "    return g(x)", "g", True,
         True, 0.0, 0.0, False),
    Case("indented block, grammar gate", C, "    return g(x)", "    return g(x)", "g", True,
         True, 1.0, 1.0, True),
    # compile's symbol-table errors count as grammar errors.
    Case("return outside a function, grammar gate", V, "return g(x)", "return g(x)", "g", True,
         True, 0.0, 0.0, False),
    Case("return outside a function, grammar gate", C, "return g(x)", "return g(x)", "g", True,
         True, 1.0, 1.0, True),
    # What clear_ans.py leaves of "```py\nx = f(1)\n```": "py" stays, a bare name that compiles.
    Case("fence language tag left over", V, "py\nx = f(1)\n", "x = f(1)", "f", False,
         False, 1.0, 1.0, True),
    Case("fence language tag removed", C, "x = f(1)", "x = f(1)", "f", False, True, 1.0, 1.0, True),
    # CRLF: tokenize takes "\r\n" as a newline; a line split at "\n" keeps an error token "\r".
    Case("CRLF line end", V, "x = f(1)\r\n", "x = f(1)", None, False, False, 1.0, 1.0, True),
    Case("CRLF line end", C, "x = f(1)\r\n", "x = f(1)", None, False, True, 1.0, 1.0, True),
    # Only keywords differ: VERSICODE matches "items" 5/5 and the for line 4/4; CORRECTED sees
    # [x, items] on both sides.
    Case("keyword-only difference", V, "for x in items:\n    continue",
         "for x in items:\n    pass", None, True, False, 1.0, 1.0, True),
    Case("keyword-only difference", C, "for x in items:\n    continue",
         "for x in items:\n    pass", None, True, False, 1.0, 1.0, True),
    # Soft keywords are names: [match, re, search, p, s] vs [match, re, match, p, s].
    Case("soft keyword", V, "match = re.search(p, s)", "match = re.match(p, s)", None, False,
         False, 1.0, 0.4, True),
    Case("soft keyword", C, "match = re.search(p, s)", "match = re.match(p, s)", None, False,
         False, 0.8, 0.4, True),
    # Repeated names: [b, a, b, a] vs [a, b, a, b]: one character each (1/1); LCS 3 of 4.
    Case("repeated names", V, "b(a(b(a)))", "a(b(a(b)))", None, False, False, 1.0, 0.0, True),
    Case("repeated names", C, "b(a(b(a)))", "a(b(a(b)))", None, False, False, 0.75, 0.0, True),
    # A latin-1 cookie makes tokenize decode the UTF-8 bytes as latin-1: "naÃ", error token,
    # "ve"; "naïve" vs "naÃ" shares "na": 2/5. Lexed alone, the second line has no cookie.
    Case("encoding cookie", V, "# coding: latin-1\nnaïve = 1", "naïve = 1", None, False,
         False, 0.4, 1.0, True),
    Case("encoding cookie", C, "# coding: latin-1\nnaïve = 1", "naïve = 1", None, False,
         False, 1.0, 1.0, True),
    # An unknown codec makes tokenize.tokenize() itself raise: the script's ISM then compares
    # the lines as identifiers, "x" with "x = f(1)": 1/8. (The script's PM would crash on the
    # cookie line; here that line falls back to split(" ") like any failing line.)
    Case("unknown encoding cookie", V, "# coding: foo\nx = f(1)", "x = f(1)", None, False,
         False, 1 / 8, 1.0, True),
    Case("unknown encoding cookie", C, "# coding: foo\nx = f(1)", "x = f(1)", None, False,
         False, 1.0, 1.0, True),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.variant.value}: {c.name}")
def test_worked_cases(case: Case) -> None:
    options = {"core_token": case.core, "verify_grammar": case.verify}
    assert exact_match(case.answer, case.reference, case.variant) is case.em
    assert ism(case.answer, case.reference, case.variant, **options) == pytest.approx(case.ism)
    assert pm(case.answer, case.reference, case.variant, **options) == pytest.approx(case.pm)
    assert grammar_ok(case.answer, case.variant) is case.grammar
    scores = score_answer(case.answer, case.reference, case.variant, **options)
    assert isinstance(scores, StringScores)
    assert (scores.variant, scores.em, scores.grammar) == (case.variant, case.em, case.grammar)
    assert (scores.ism, scores.pm) == pytest.approx((case.ism, case.pm))


def test_the_table_is_large_enough() -> None:
    assert len({case.name for case in CASES}) >= 30


EXTRACTIONS = [
    # (model output, VERSICODE, CORRECTED)
    ("<start>np.add<end>", "np.add", "np.add"),
    ("<start> np.add <end>", " np.add ", "np.add"),
    ("<start>\n  np.add\n\n<end>", "\n  np.add\n\n", "np.add"),
    ("The answer is <start>add", NO_ANSWER, ""),
    ("add<end>", NO_ANSWER, ""),
    ("no tags at all", NO_ANSWER, ""),
    ("<end> then <start>add<end>", "", "add"),  # VERSICODE slices from 7 to 0
    ("<start>a<end> and <start>b<end>", "a", "a"),  # the first pair
    ("<start>```python\nx = 1\n```<end>", "\nx = 1\n", "x = 1"),
    ("<start>```py\nx = 1\n```<end>", "py\nx = 1\n", "x = 1"),
    ("<start>```Python\nx = 1<end>", "Python\nx = 1", "x = 1"),  # closing fence missing
    ("<start>`add`<end>", "`add`", "add"),
    ("<start>```add```<end>", "add", "add"),
    ("<start>\n    y = f(x)\n    return y\n<end>", "\n    y = f(x)\n    return y\n",
     "    y = f(x)\n    return y"),  # indentation kept
    ('<start>s = "```"<end>', 's = ""', 's = "```"'),  # backticks inside code
]  # fmt: skip


@pytest.mark.parametrize(("output", "faithful", "corrected"), EXTRACTIONS)
def test_extract_answer(output: str, faithful: str, corrected: str) -> None:
    assert extract_answer(output, V) == faithful
    assert extract_answer(output, C) == corrected


# --- identifiers: pinned to CPython 3.8-3.11's tokenize on every interpreter ------------------

FSTRING_CODE = 'msg = f"{user.name!r:>{width}} has {len(items)} items"\nlog(msg)\n'
FSTRING_VERSICODE = ("msg", "log", "msg")  # the f-string is one STRING token before 3.12
FSTRING_CORRECTED = ("msg", "user", "name", "width", "len", "items", "log", "msg")


def test_fstrings_are_pinned() -> None:
    assert identifiers(FSTRING_CODE, V) == FSTRING_VERSICODE
    assert identifiers(FSTRING_CODE, C) == FSTRING_CORRECTED


def test_identifiers_never_call_tokenize(monkeypatch: pytest.MonkeyPatch) -> None:
    """The result cannot come from the running interpreter's tokenizer: it is never used."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("tokenize was called")

    for name in ("tokenize", "generate_tokens", "detect_encoding"):
        monkeypatch.setattr(tokenize, name, refuse)
    code = FSTRING_CODE + "# distinct from the cached call\n"
    assert identifiers(code, V) == FSTRING_VERSICODE
    assert identifiers(code, C) == FSTRING_CORRECTED


_OTHER_INTERPRETER = textwrap.dedent(
    """
    import importlib.util, io, json, sys, tokenize, types
    # pydantic (for StringScores only) is not installed for this interpreter: a stand-in.
    stub = types.ModuleType("pydantic")
    stub.BaseModel = type("BaseModel", (), {})
    stub.ConfigDict = dict
    sys.modules["pydantic"] = stub
    spec = importlib.util.spec_from_file_location("versicode", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    sys.modules["versicode"] = module
    spec.loader.exec_module(module)
    code = sys.argv[2]
    names = [t.string for t in tokenize.tokenize(io.BytesIO(code.encode()).readline)
             if t.type == tokenize.NAME]
    print(json.dumps({
        "version": list(sys.version_info[:2]),
        "tokenize": names,
        "versicode": module.identifiers(code, module.Variant.VERSICODE),
        "corrected": module.identifiers(code, module.Variant.CORRECTED),
        "pep701": module.grammar_ok('print(f"{d["k"]}")'),
    }))
    """
)


def _other_interpreters() -> list[str]:
    """Installed CPython interpreters 3.11 or newer (the module's own syntax needs 3.11) other
    than this one, one per version, found on PATH or among pyenv's versions; on a machine
    without any, the test below is skipped."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which(f"python3.{minor}") for minor in range(11, 16)]
    candidates += [str(path) for path in sorted(pyenv.glob("3.*/bin/python3"))]
    found: dict[str, str] = {}
    for path in filter(None, candidates):
        probe = subprocess.run(
            [path, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        version = tuple(map(int, probe.stdout.split())) if probe.returncode == 0 else ()
        if version >= (3, 11) and version != sys.version_info[:2]:
            found.setdefault(probe.stdout, path)
    return list(found.values())


@pytest.mark.skipif(not _other_interpreters(), reason="no other CPython 3.11+ installed")
def test_identifiers_are_the_same_on_other_interpreters() -> None:
    source = Path(versicode.__file__)
    for interpreter in _other_interpreters():
        command = [interpreter, "-c", _OTHER_INTERPRETER, str(source), FSTRING_CODE]
        result = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
        assert tuple(result["versicode"]) == FSTRING_VERSICODE, interpreter
        assert tuple(result["corrected"]) == FSTRING_CORRECTED, interpreter
        assert result["pep701"] is False, interpreter  # 3.12+ would compile it
        if tuple(result["version"]) >= (3, 12):  # where the pinning matters
            assert tuple(result["tokenize"]) != FSTRING_VERSICODE


def _script_identifiers(code: str) -> tuple[str, ...]:
    """What VersiCode's get_token keeps for one side, from this interpreter's tokenize:
    NAME tokens; () when iterating raises (the spent generator); the lines when the call does."""
    try:
        tokens = tokenize.tokenize(io.BytesIO(code.encode("utf-8")).readline)
    except Exception:
        return tuple(code.splitlines())
    names = []
    try:
        for token in tokens:
            if token.type == tokenize.NAME:
                names.append(token.string)
    except Exception:
        return ()
    return tuple(names)


def _mutated_sources(count: int) -> list[str]:
    """Chunks of the standard library, cut, spliced with quotes, brackets, backslashes,
    indentation, cookies and odd characters: what broken model output looks like, and worse."""
    rng = random.Random(1)
    files = sorted(Path(tokenize.__file__).parent.glob("*.py"))
    inserts = ["'", '"', '"""', "(", ")", "]", "{", "\\", "\\\n", "#", "\n", "\n    ", "\t",
               "f'{", "\r", "\x0c", "é", "\u0663", "\ufeff", "rb'", ".5", "...0x1f", "1e",
               "# coding: latin-1\n", "# coding: foo\n"]  # fmt: skip
    sources = []
    while len(sources) < count:
        lines = rng.choice(files).read_text(encoding="utf-8").split("\n")
        start = rng.randrange(len(lines))
        chunk = "\n".join(lines[start : start + rng.randint(1, 12)])
        for _ in range(rng.randint(0, 3)):
            at = rng.randrange(len(chunk) + 1)
            chunk = chunk[:at] + rng.choice(inserts) + chunk[at:]
        sources.append(chunk[: rng.randint(0, len(chunk))] if rng.random() < 0.2 else chunk)
    return sources


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="tokenize changed in 3.12")
def test_identifiers_match_tokenize_up_to_3_11() -> None:
    for source in _mutated_sources(3000):
        assert identifiers(source, V) == _script_identifiers(source), source


def _script_line_identifiers(line: str) -> tuple[str, ...] | None:
    """What VersiCode's get_token_per_line keeps for one line: NAME tokens, or line.split(" ")
    when iterating raises; None where the script itself crashes (the call raises)."""
    try:
        tokens = tokenize.tokenize(io.BytesIO(line.encode("utf-8")).readline)
    except Exception:
        return None
    try:
        return tuple(token.string for token in tokens if token.type == tokenize.NAME)
    except Exception:
        return tuple(line.split(" "))


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="tokenize changed in 3.12")
def test_line_identifiers_match_tokenize_up_to_3_11() -> None:
    """PM lexes each line alone and falls back to split(" ") where tokenize raises."""
    for source in _mutated_sources(1000):
        for line in source.split("\n"):
            expected = _script_line_identifiers(line)
            if expected is not None:
                assert versicode._versicode_line_identifiers(line) == expected, line


# --- grammar ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        'f"{d["k"]}"',  # PEP 701: nested same quotes
        "f\"{'\\n'.join(a)}\"",  # backslash in an expression
        'f"""{x # comment\n}"""',  # comment in an expression
        "f'{x:{y:{z}}}'",  # format specs nested twice
        "type X = int",  # PEP 695
        "def f[T](x: T): pass",
    ],
)
def test_grammar_is_python_3_11s_on_every_interpreter(code: str) -> None:
    assert not grammar_ok(code, V)
    assert not grammar_ok(code, C)


@pytest.mark.parametrize("code", ["f'{x!r:>{w}}'", "f'{x=}'", "f\"{'#'}\"", "f'{a:{b}}'"])
def test_fstrings_3_11_accepts(code: str) -> None:
    assert grammar_ok(code, V)
    assert grammar_ok(code, C)


def test_grammar_ignores_warnings_turned_into_errors() -> None:
    """Under -W error an invalid escape would become a SyntaxError; the verdict must not."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert grammar_ok('x = "\\d"', V)
        assert grammar_ok('x = "\\d"', C)


# --- the fast algorithms against the definitions they replace ---------------------------------


def _prefix(first: str | tuple[str, ...], second: str | tuple[str, ...]) -> int:
    length = 0
    while length < min(len(first), len(second)) and first[length] == second[length]:
        length += 1
    return length


def _definition_ism(reference: tuple[str, ...], answer: tuple[str, ...]) -> float:
    best, pair = 0, ("", "")
    for left in reference:
        for right in answer:
            if _prefix(left, right) > best:
                best, pair = _prefix(left, right), (left, right)
    return best / max(map(len, pair)) if best else 0.0


def _definition_lcs(first: tuple[str, ...], second: tuple[str, ...]) -> int:
    row = [0] * (len(second) + 1)
    for left in first:
        diagonal = 0
        for j, right in enumerate(second, start=1):
            diagonal, row[j] = row[j], diagonal + 1 if left == right else max(row[j], row[j - 1])
    return row[-1]


def test_versicode_ism_is_the_quadratic_definition() -> None:
    rng = random.Random(2)
    alphabet = ["a", "ab", "abc", "abd", "b", "ba", "bab", "x", "xy", "abx", "aab"]
    for _ in range(2000):
        reference = tuple(rng.choices(alphabet, k=rng.randint(0, 7)))
        answer = tuple(rng.choices(alphabet, k=rng.randint(0, 7)))
        expected = _definition_ism(reference, answer)
        assert ism(" ".join(answer), " ".join(reference), V) == pytest.approx(expected)


def test_versicode_pm_is_the_quadratic_definition() -> None:
    rng = random.Random(3)
    for _ in range(1000):
        reference = [tuple(rng.choices("abc", k=rng.randint(0, 4))) for _ in range(4)]
        answer = [tuple(rng.choices("abc", k=rng.randint(0, 4))) for _ in range(4)]
        best, lengths = 0, (0, 0)
        for left in reference:
            for right in answer:
                if _prefix(left, right) > best:
                    best, lengths = _prefix(left, right), (len(left), len(right))
        expected = best / max(lengths) if best else 0.0
        answer_text = "\n".join(" ".join(line) for line in answer)
        reference_text = "\n".join(" ".join(line) for line in reference)
        assert pm(answer_text, reference_text, V) == pytest.approx(expected)


def test_corrected_ism_is_lcs_over_the_longer() -> None:
    rng = random.Random(4)
    for _ in range(2000):
        reference = tuple(rng.choices("abcd", k=rng.randint(0, 70)))
        answer = tuple(rng.choices("abcd", k=rng.randint(0, 70)))
        longer = max(len(reference), len(answer))
        expected = _definition_lcs(reference, answer) / longer if longer else 1.0
        assert ism(" ".join(answer), " ".join(reference), C) == pytest.approx(expected)


# --- expected best of k -----------------------------------------------------------------------


def _brute_force(scores: list[float], k: int) -> Fraction:
    subsets = list(itertools.combinations(scores, k))
    return sum((Fraction(max(subset)) for subset in subsets), Fraction(0)) / len(subsets)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_expected_best_at_k_is_the_mean_over_all_k_subsets(n: int) -> None:
    rng = random.Random(n)
    for _ in range(20):
        scores = [rng.choice([0.0, 0.25, 0.5, 1 / 3, 1.0]) for _ in range(n)]  # with ties
        for k in range(1, n + 1):
            assert expected_best_at_k(scores, k) == pytest.approx(float(_brute_force(scores, k)))


def test_expected_best_at_k_on_0_1_scores_is_pass_at_k() -> None:
    for n, c, k in [(10, 0, 1), (10, 3, 1), (10, 3, 5), (20, 19, 3), (100, 7, 10), (100, 0, 100)]:
        scores = [1.0] * c + [0.0] * (n - c)
        assert expected_best_at_k(scores, k) == pytest.approx(pass_at_k(n, c, k))


def test_expected_best_at_k_for_n_100_is_exact() -> None:
    rng = random.Random(5)
    scores = [rng.random() for _ in range(100)]
    for k in (1, 2, 10, 50, 99, 100):
        total = math.comb(100, k)
        exact = sum(
            Fraction(math.comb(i - 1, k - 1), total) * Fraction(score)
            for i, score in enumerate(sorted(scores), start=1)
        )
        assert expected_best_at_k(scores, k) == pytest.approx(float(exact), rel=1e-12)
    assert expected_best_at_k(scores, 100) == max(scores)


@pytest.mark.parametrize(("n", "k"), [(0, 1), (3, 0), (3, 4)])
def test_k_outside_1_to_n_is_refused(n: int, k: int) -> None:
    with pytest.raises(ValueError):
        expected_best_at_k([1.0] * n, k)


# --- batches ----------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(Variant))
def test_score_samples_agrees_with_the_one_answer_functions(variant: Variant) -> None:
    reference = "import numpy as np\narr = np.zeros(3)\ntotal = arr.sum()"
    answers = [
        reference,
        "import numpy as np\narr = np.ones(5)\ntotal = arr.mean()",
        "arr = np.zeros(",
        "",
        reference,  # repeated: scored once, reported twice
        "    total = arr.sum()",
    ]
    result = score_samples(answers, reference, [1, 2, 6], variant, core_token="zeros",
                           verify_grammar=True)  # fmt: skip
    assert result["variant"] is variant
    assert result["n"] == len(answers)
    for index, answer in enumerate(answers):
        one = score_answer(answer, reference, variant, core_token="zeros", verify_grammar=True)
        assert result["em"][index] is one.em
        assert result["ism"][index] == one.ism
        assert result["pm"][index] == one.pm
        assert result["grammar"][index] is one.grammar
    for k in (1, 2, 6):
        assert result["at_k"]["ism"][k] == expected_best_at_k(result["ism"], k)
        assert result["at_k"]["pm"][k] == expected_best_at_k(result["pm"], k)
    assert result["at_k"]["em"][1] == pytest.approx(2 / 6)


def test_score_samples_refuses_k_above_n() -> None:
    with pytest.raises(ValueError):
        score_samples(["a", "b"], "a", [1, 3])
