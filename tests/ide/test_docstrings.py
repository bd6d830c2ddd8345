"""The doc scenario: requirements from code, docstrings in three styles, and edits to real files."""

from __future__ import annotations

import ast
import inspect
import textwrap

import pytest

from pinbench.tasks.ide.docstrings import (
    FunctionFacts,
    answer_docstring,
    check_format,
    facts,
    find_function,
    insert_docstring,
    strip_docstring,
    summary,
    syntax_ok,
    synthesize,
)

# Needs x, y, *args, **kwargs, a return and ValueError documented.
FUNC = """\
def combine(x, y, *args, **kwargs):
    if not x:
        raise ValueError("empty")
    return [x, y, *args]
"""

GOOGLE = """Combine the inputs into one list.

Args:
    x (int): The first item.
    y: The second item,
        described on two lines.
    *args: More items.
    **kwargs: Ignored.

Returns:
    list: The items.

Raises:
    ValueError: When x is empty.
"""

NUMPY = """Combine the inputs into one list.

Parameters
----------
x : int
    The first item.
y : int
    The second item.
*args
    More items.
**kwargs : dict
    Ignored.

Returns
-------
list
    The items.

Raises
------
ValueError
    When x is empty.
"""

REST = """Combine the inputs into one list.

:param int x: The first item.
:param y: The second item.
:param args: More items.
:param kwargs: Ignored.
:returns: The items.
:rtype: list
:raises ValueError: When x is empty.
"""

STYLES = {"google": GOOGLE, "numpy": NUMPY, "rest": REST}


def _facts(source: str, qualname: str | None = None) -> FunctionFacts:
    tree = ast.parse(textwrap.dedent(source))
    if qualname is None:
        fn = tree.body[0]
        assert isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
    else:
        found = find_function(tree, qualname)
        assert found is not None
        fn = found
    return facts(fn, method=qualname is not None and "." in qualname)


def _without(doc: str, *needles: str) -> str:
    """`doc` less every line containing one of `needles`."""
    return "\n".join(line for line in doc.split("\n") if not any(n in line for n in needles))


# --- what a function requires ----------------------------------------------------------------


def test_facts_of_a_plain_function() -> None:
    f = _facts(FUNC)
    assert (f.name, f.params, f.returns, f.generator, f.raises, f.method) == (
        "combine",
        ("x", "y", "*args", "**kwargs"),
        True,
        False,
        ("ValueError",),
        False,
    )


def test_parameter_order_covers_every_kind_and_drops_self_and_cls() -> None:
    src = """
    class C:
        def m(self, a, /, b, *rest, c, **opts): pass
        @classmethod
        def k(cls, z): pass
        @staticmethod
        def s(q): pass
    """
    assert _facts(src, "C.m").params == ("a", "b", "*rest", "c", "**opts")
    assert _facts(src, "C.k").params == ("z",)
    assert _facts(src, "C.s").params == ("q",)


def test_nested_scopes_do_not_count() -> None:
    src = """
    def outer(x):
        def inner():
            raise KeyError(x)
            return 1
        class Helper:
            def get(self):
                yield 2
                raise TypeError
        print(x)
    """
    f = _facts(src)
    assert (f.params, f.returns, f.generator, f.raises) == (("x",), False, False, ())


def test_raise_forms() -> None:
    src = """
    def f(x):
        try:
            pass
        except OSError as err:
            raise
        raise errors.NotFound("x") from None
        raise TypeError
        raise TypeError("again")
    """
    assert _facts(src).raises == ("OSError", "TypeError", "errors.NotFound")


def test_generators() -> None:
    assert _facts("def f():\n    yield 1\n").generator
    assert _facts("async def f():\n    yield 1\n").generator
    assert _facts("def f():\n    yield from g()\n").generator


def test_find_function() -> None:
    tree = ast.parse(
        textwrap.dedent("""
        import sys
        if sys.version_info >= (3, 8):
            def guarded(): pass
        class Outer:
            class Inner:
                async def m(self): pass
        def f(): pass
        """)
    )
    inner = find_function(tree, "Outer.Inner.m")
    assert isinstance(inner, ast.AsyncFunctionDef) and inner.lineno == 7
    assert find_function(tree, "guarded") is not None
    assert find_function(tree, "m") is None
    assert find_function(tree, "Outer.m") is None
    assert find_function(tree, "f.Inner") is None


# --- pydoclint's verdict on a docstring --------------------------------------------------------


@pytest.mark.parametrize("style", sorted(STYLES))
def test_each_style_complete_passes(style: str) -> None:
    assert summary(STYLES[style]) == "Combine the inputs into one list."
    check = check_format(STYLES[style], _facts(FUNC))
    assert check.ok, check.problems


FORGOT_Y = {
    "google": _without(GOOGLE, "y: The second", "described on two"),
    "numpy": NUMPY.replace("y : int\n    The second item.\n", ""),
    "rest": _without(REST, ":param y:"),
}


@pytest.mark.parametrize("style", sorted(FORGOT_Y))
def test_a_forgotten_argument_fails_and_is_named(style: str) -> None:
    assert FORGOT_Y[style] != STYLES[style]
    check = check_format(FORGOT_Y[style], _facts(FUNC))
    assert not check.ok and not check.params
    assert check.purpose and check.returns and check.raises
    assert any("y" in p and "DOC10" in p for p in check.problems), check.problems


def test_an_argument_the_function_does_not_have_fails() -> None:
    doc = "Scale a value.\n\nArgs:\n    x: The value.\n    factor: Not a parameter.\n"
    check = check_format(doc, _facts("def f(x):\n    print(x)\n"))
    assert not check.params and not check.ok


@pytest.mark.parametrize(
    ("style", "cut"),
    [
        ("google", ("Returns:", "list: The items.")),
        ("numpy", ("Returns\n-------\nlist\n    The items.\n",)),
        ("rest", (":returns:", ":rtype:")),
    ],
)
def test_a_forgotten_return_fails(style: str, cut: tuple[str, ...]) -> None:
    doc = STYLES[style]
    doc = doc.replace(cut[0], "") if style == "numpy" else _without(doc, *cut)
    check = check_format(doc, _facts(FUNC))
    assert not check.returns and not check.ok
    assert check.params


def test_returns_need_not_be_documented_when_nothing_is_returned() -> None:
    check = check_format("Log the event.\n\nArgs:\n    x: The event.", _facts("def f(x): log(x)"))
    assert check.ok, check.problems


@pytest.mark.parametrize(
    ("style", "cut"),
    [
        ("google", "Raises:\n    ValueError: When x is empty.\n"),
        ("numpy", "Raises\n------\nValueError\n    When x is empty.\n"),
        ("rest", ":raises ValueError: When x is empty.\n"),
    ],
)
def test_a_forgotten_raise_fails(style: str, cut: str) -> None:
    assert cut in STYLES[style]
    check = check_format(STYLES[style].replace(cut, ""), _facts(FUNC))
    assert not check.raises and not check.ok
    assert check.well_formed and check.params and check.returns


def test_an_empty_section_is_malformed() -> None:
    doc = _without(GOOGLE, "ValueError: When")
    check = check_format(doc, _facts(FUNC))
    assert not check.well_formed and not check.ok
    assert any("DOC001" in p for p in check.problems)


def test_a_wrong_exception_fails() -> None:
    check = check_format(GOOGLE.replace("ValueError: When", "KeyError: When"), _facts(FUNC))
    assert not check.raises and not check.ok


def test_type_fields_alone_document_nothing() -> None:
    doc = "Add one.\n\n:type x: int\n:rtype: int\n"
    check = check_format(doc, _facts("def f(x):\n    return x + 1\n"))
    assert not check.params and not check.ok


def test_a_summary_alone_documents_nothing() -> None:
    check = check_format("Add one to the number.", _facts("def f(x):\n    return x + 1\n"))
    assert check.purpose and not check.params and not check.returns


def test_a_method_documents_its_parameters_but_not_self() -> None:
    src = "class C:\n    def m(self, q):\n        return q\n"
    doc = "Echo the query.\n\nArgs:\n    q: The query.\n\nReturns:\n    The query."
    assert check_format(doc, _facts(src, "C.m")).ok
    with_self = doc.replace("Args:\n", "Args:\n    self: The object.\n")
    assert not check_format(with_self, _facts(src, "C.m")).ok


def test_a_constructor_may_carry_its_docstring() -> None:
    src = "class C:\n    def __init__(self, size):\n        self.size = size\n"
    doc = "Make a buffer of the given size.\n\nArgs:\n    size: How many items it holds."
    assert check_format(doc, _facts(src, "C.__init__")).ok


@pytest.mark.parametrize(
    "summary_line",
    ["", "get_value", "Get value.", "Gets the value.", "The getValue function.", "TODO", "..."],
)
def test_a_summary_that_says_nothing_fails(summary_line: str) -> None:
    doc = f"{summary_line}\n\nReturns:\n    The value."
    check = check_format(doc, _facts("def get_value():\n    return 1\n"))
    assert not check.purpose and not check.ok


def test_a_docstring_starting_with_a_section_has_no_summary() -> None:
    assert summary("Args:\n    x: thing") == ""
    assert summary(":param x: thing") == ""
    assert summary("Parameters\n----------\nx : int") == ""


def test_a_summary_that_describes_passes() -> None:
    doc = "Fetch the cached value,\nloading it on first use.\n\nReturns:\n    The value."
    assert summary(doc) == "Fetch the cached value, loading it on first use."
    assert check_format(doc, _facts("def get_value():\n    return 1\n")).ok


@pytest.mark.parametrize("section", ["Yields:\n    int: Counts.", "Yields\n------\nint"])
def test_a_generator_documents_its_yield(section: str) -> None:
    check = check_format(f"Count up.\n\n{section}", _facts("def count():\n    yield 1\n"))
    assert check.ok, check.problems


@pytest.mark.parametrize("section", ["", "Returns:\n    Counts."])
def test_a_generator_without_a_yields_section_fails(section: str) -> None:
    check = check_format(f"Count up.\n\n{section}", _facts("def count():\n    yield 1\n"))
    assert not check.returns and not check.ok


@pytest.mark.parametrize(
    "entries",
    [
        "args: Items.\n    kwargs: Options.",
        "*args: Items.\n    **kwargs: Options.",
        "*args (int): Items.\n    **kwargs (str): Options.",
    ],
)
def test_star_parameters_with_or_without_stars(entries: str) -> None:
    doc = f"Collect values.\n\nArgs:\n    {entries}"
    check = check_format(doc, _facts("def f(*args, **kwargs): pass"))
    assert check.ok, check.problems


def test_description_lines_are_not_entries() -> None:
    google = "Do it.\n\nArgs:\n    x: The first;\n        y: appears in this text only.\n"
    numpy = "Do it.\n\nParameters\n----------\nx : int\n    y : appears in this text only.\n"
    for doc in (google, numpy):
        assert not check_format(doc, _facts("def f(x, y): pass")).params
        assert check_format(doc, _facts("def f(x): pass")).ok


def test_a_parameter_named_like_a_section_is_not_a_section() -> None:
    doc = "Do it.\n\nArgs:\n    returns: Whether to return.\n    raises: Whether to raise."
    check = check_format(doc, _facts("def f(returns, raises): pass"))
    assert check.ok, check.problems
    assert not check_format(doc, _facts("def f(returns, raises):\n    return 1\n")).returns


@pytest.mark.parametrize(
    "fn",
    [
        FUNC,
        "def f():\n    pass\n",
        "def gen(a, *, b):\n    if a:\n        raise mod.Broken()\n    yield a\n",
        "class C:\n    def m(self, q):\n        raise KeyError(q)\n",
        "def g(x):\n    if x:\n        return\n    print(x)\n",
    ],
)
def test_synthesized_reference_passes_its_own_check(fn: str) -> None:
    f = _facts(fn, "C.m" if fn.startswith("class") else None)
    doc = synthesize(f, "Do the thing.")
    check = check_format(doc, f)
    assert check.ok, check.problems


# --- the docstring in a model's answer -------------------------------------------------------


def test_answer_as_a_fenced_function() -> None:
    answer = (
        "Here you go:\n\n```python\n@cached\ndef combine(x, y):\n"
        '    """Combine x and y.\n\n    Args:\n        x: A.\n        y: B.\n    """\n'
        "    return [x, y]\n```\nHope it helps."
    )
    assert (
        answer_docstring(answer, "Merger.combine")
        == "Combine x and y.\n\nArgs:\n    x: A.\n    y: B."
    )


@pytest.mark.parametrize("fence", [False, True])
def test_answer_as_an_indented_method(fence: bool) -> None:
    answer = "    def combine(self):\n        '''Combine them.'''\n        return 1\n"
    answer = f"Here:\n```python\n{answer}```" if fence else answer
    assert answer_docstring(answer, "Merger.combine") == "Combine them."


@pytest.mark.parametrize(
    "answer",
    [
        '"""Combine x and y.\n\n    Args:\n        x: A.\n    """',
        "  r'''Combine x and y.\n\n    Args:\n        x: A.\n    '''",
        '```python\n    """Combine x and y.\n\n    Args:\n        x: A.\n    """\n```',
        '"""Combine x and y.\n\n    Args:\n        x: A.\n',  # truncated
    ],
)
def test_answer_as_a_docstring_literal(answer: str) -> None:
    assert answer_docstring(answer, "combine") == "Combine x and y.\n\nArgs:\n    x: A."


def test_literal_escapes_are_read_as_python_reads_them() -> None:
    assert answer_docstring('"""Line\\nbreak \\"q\\"."""', "f") == 'Line\nbreak "q".'
    assert answer_docstring('r"""Match \\d+."""', "f") == "Match \\d+."


@pytest.mark.parametrize(
    "answer",
    ["Combine x and y.\n\nArgs:\n    x: A.", "```\nCombine x and y.\n\nArgs:\n    x: A.\n```"],
)
def test_answer_as_prose(answer: str) -> None:
    assert answer_docstring(f"\n{answer}\n\n", "combine") == "Combine x and y.\n\nArgs:\n    x: A."


@pytest.mark.parametrize(
    "answer",
    [
        '```python\ndef other(x):\n    """Other."""\n    return x\n```',
        "def combine(x):\n    return x\n",  # the right function, but no docstring
        "",
        "   \n",
    ],
)
def test_answers_without_a_docstring_for_this_function(answer: str) -> None:
    assert answer_docstring(answer, "combine") is None


# --- the docstring in the file ---------------------------------------------------------------

FILE = '''\
"""A module."""
import functools


def plain(x): return x * 2  # doubled


class Outer:
    class Inner:
        @functools.cache
        @staticmethod
        def method(a, b):
            # a comment before the body
            return a + b


async def fetch(url):
    await go(url)


def long_signature(
    first: int,
    second: str = "x",
) -> dict[str, int]:
    return {second: first}


def documented(x):
    """Old text.

    More old text.
    """
    return x


def tail():
    return "é"
'''


DOC = "Do the work.\n\nArgs:\n    a: First.\n\nReturns:\n    The result."


def _doc_lines(indent: str) -> str:
    """DOC as insert_docstring writes it at `indent`."""
    body = ["Do the work.", "", "Args:", "    a: First.", "", "Returns:", "    The result.", ""]
    text = "\n".join(indent + line if line else line for line in body)
    return indent + '"""' + text.lstrip() + indent + '"""\n'


OLD_DOC = '    """Old text.\n\n    More old text.\n    """\n'


@pytest.mark.parametrize(
    ("qualname", "old", "new"),
    [
        (
            "plain",
            "def plain(x): return x * 2  # doubled\n",
            "def plain(x):\n" + _doc_lines("    ") + "    return x * 2  # doubled\n",
        ),
        (
            "Outer.Inner.method",
            "        def method(a, b):\n",
            "        def method(a, b):\n" + _doc_lines("            "),
        ),
        ("fetch", "async def fetch(url):\n", "async def fetch(url):\n" + _doc_lines("    ")),
        (
            "long_signature",
            ") -> dict[str, int]:\n",
            ") -> dict[str, int]:\n" + _doc_lines("    "),
        ),
        ("documented", OLD_DOC, _doc_lines("    ")),
    ],
)
def test_insert_touches_only_the_docstring(qualname: str, old: str, new: str) -> None:
    assert FILE.count(old) == 1
    out = insert_docstring(FILE, qualname, DOC)
    assert out == FILE.replace(old, new)
    assert syntax_ok(out, qualname, DOC)


def test_insert_splits_a_one_line_body() -> None:
    out = insert_docstring(FILE, "plain", "Double x.")
    assert 'def plain(x):\n    """Double x."""\n    return x * 2  # doubled\n' in out
    fn = find_function(ast.parse(out), "plain")
    assert fn is not None and ast.get_docstring(fn) == "Double x." and len(fn.body) == 2


def test_insert_replaces_an_existing_docstring() -> None:
    out = insert_docstring(FILE, "documented", "New text.")
    assert 'def documented(x):\n    """New text."""\n    return x\n' in out
    assert "Old text" not in out


@pytest.mark.parametrize(
    "doc",
    [
        'Quote """ inside, \'\'\' too, and a final quote"',
        "Backslashes: C:\\path\\n and \\d+ and a trailing one \\",
        'Two quotes "" then ""\n\n    An indented "line"\n"""',
        "Control \x0c char, nul \x00, carriage\r\nreturn, tab\tstop",
    ],
)
def test_awkward_text_round_trips(doc: str) -> None:
    for qualname in ("plain", "documented", "long_signature"):
        out = insert_docstring(FILE, qualname, doc)
        fn = find_function(ast.parse(out), qualname)
        assert fn is not None
        assert ast.get_docstring(fn) == inspect.cleandoc(doc.replace("\r\n", "\n"))
        assert syntax_ok(out, qualname, doc)


def test_insert_after_non_ascii_on_the_def_line() -> None:
    src = 'x = 1\ndef naïve(é="ü"): return é  # ü\n'
    out = insert_docstring(src, "naïve", "Échos.")
    assert out == 'x = 1\ndef naïve(é="ü"):\n    """Échos."""\n    return é  # ü\n'


@pytest.mark.parametrize("nl", ["\r\n", "\r"])
def test_insert_keeps_line_endings_and_tabs(nl: str) -> None:
    src = "class C:\n\tdef m(self):\n\t\treturn 1\n\tdef n(self): return 2\n".replace("\n", nl)
    doc = '\t\t"""One.\n\n\t\tTwo.\n\t\t"""\n'.replace("\n", nl)
    out = insert_docstring(src, "C.m", "One.\n\nTwo.")
    assert out == src.replace(f"m(self):{nl}", f"m(self):{nl}{doc}")
    out = insert_docstring(src, "C.n", "Two.")
    assert out == src.replace("n(self): return 2", f'n(self):{nl}\t\t"""Two."""{nl}\t\treturn 2')


def test_insert_before_a_decorated_first_statement() -> None:
    src = "def outer(f):\n    @wraps(f)\n    def inner():\n        return f()\n    return inner\n"
    out = insert_docstring(src, "outer", "Wrap f.")
    assert out == src.replace("(f):\n", '(f):\n    """Wrap f."""\n')


def test_insert_into_a_one_line_body_that_has_a_docstring() -> None:
    src = "def f(): 'old'; return 1\n\ndef g(): 'only'  # note\n"
    out = insert_docstring(src, "f", "New.")
    assert out.startswith('def f():\n    """New."""\n    return 1\n\ndef g()')
    out = insert_docstring(src, "g", "New.")
    assert out.endswith('def g():\n    """New."""\n    # note\n')


def test_insert_unknown_function_raises_key_error() -> None:
    with pytest.raises(KeyError):
        insert_docstring(FILE, "Outer.method", DOC)


def test_strip_docstring() -> None:
    assert strip_docstring(FILE, "documented") == FILE.replace(OLD_DOC, "")
    assert strip_docstring(FILE, "plain") == FILE


def test_strip_leaves_a_valid_body() -> None:
    src = 'class C:\n    def m(self):\n        """Only a docstring."""\n'
    src += '\n    def n(self): "doc"; return 2\n'
    out = strip_docstring(strip_docstring(src, "C.m"), "C.n")
    assert out == "class C:\n    def m(self):\n        ...\n\n    def n(self): return 2\n"
    tree = ast.parse(out)
    assert all(
        ast.get_docstring(f) is None for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
    )


def test_strip_then_insert_restores_the_file() -> None:
    stripped = strip_docstring(FILE, "documented")
    assert insert_docstring(stripped, "documented", "Old text.\n\nMore old text.") == FILE


def test_syntax_ok_rejects_misplaced_or_altered_docstrings() -> None:
    good = insert_docstring(FILE, "fetch", "Fetch it.")
    assert syntax_ok(good, "fetch", "Fetch it.")
    assert not syntax_ok(good, "fetch", "Fetch something else.")
    assert not syntax_ok(good, "missing", "Fetch it.")
    misplaced = FILE.replace("    await go(url)\n", '    await go(url)\n    """Fetch it."""\n')
    assert not syntax_ok(misplaced, "fetch", "Fetch it.")
    badly_indented = FILE.replace("    await go(url)\n", '  """Fetch it."""\n    await go(url)\n')
    assert not syntax_ok(badly_indented, "fetch", "Fetch it.")
