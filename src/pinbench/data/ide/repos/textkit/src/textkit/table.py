"""Render and parse GitHub-flavoured Markdown tables."""

from __future__ import annotations

import itertools
import re
from typing import Dict, Iterable, List, Mapping, Optional, Sequence

ALIGNMENTS = ("left", "center", "right")
_SEPARATOR_RE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def _pad(cell: str, width: int, align: str = "left") -> str:
    if align == "right":
        return cell.rjust(width)
    if align == "center":
        return cell.center(width)
    return cell.ljust(width)


class Table:
    """A Markdown table: headers, rows of cells and per-column alignment."""

    def __init__(self, headers: Sequence[str], align: Optional[Mapping[int, str]] = None) -> None:
        if not headers:
            raise ValueError("a table needs at least one column")
        self.headers = [self.escape(header) for header in headers]
        self.align: Dict[int, str] = dict(align or {})
        for index, value in self.align.items():
            if value not in ALIGNMENTS:
                raise ValueError(f"column {index}: alignment must be one of {ALIGNMENTS}")
        self._rows: List[List[str]] = []

    @property
    def rows(self) -> List[List[str]]:
        return [list(row) for row in self._rows]

    @staticmethod
    def escape(cell: object) -> str:
        text = "" if cell is None else str(cell)
        return text.replace("|", "\\|").replace("\n", " ")

    @classmethod
    def from_dicts(
        cls, records: Iterable[Mapping[str, object]], columns: Optional[List[str]] = None
    ) -> Table:
        """Build a table from a list of dictionaries.

        Parameters
        ----------
        records : iterable of mapping
            One mapping per row; missing keys become empty cells.
        columns : list of str, optional
            Column order. By default every key that appears, in first-seen
            order.

        Returns
        -------
        Table
            A table with one row per record.
        """
        records = list(records)
        if columns is None:
            columns = []
            for record in records:
                columns.extend(key for key in record if key not in columns)
        table = cls(columns)
        for record in records:
            table.add_row(*(record.get(column, "") for column in columns))
        return table

    def add_row(self, *cells: object) -> Table:
        """Append a row, escaping pipes and newlines in each cell.

        Parameters
        ----------
        *cells : object
            Cell values, converted with ``str``; ``None`` becomes empty. A
            short row is padded with empty cells.

        Returns
        -------
        Table
            The table itself, so calls can be chained.

        Raises
        ------
        ValueError
            If there are more cells than columns.
        """
        if len(cells) > len(self.headers):
            raise ValueError(f"row has {len(cells)} cells, table has {len(self.headers)} columns")
        row = [self.escape(cell) for cell in cells]
        row.extend("" for _ in range(len(self.headers) - len(row)))
        self._rows.append(row)
        return self

    def _column_widths(self) -> List[int]:
        widths = [max(3, len(header)) for header in self.headers]
        for row in self._rows:
            for index, cell in enumerate(row):
                widths[index] = max(widths[index], len(cell))
        return widths

    def _separator_cell(self, index: int, width: int) -> str:
        """Return the dashes under column `index`, marked with its alignment.

        Parameters
        ----------
        index : int
            Column number.
        width : int
            Column width, at least 3.

        Returns
        -------
        str
            ``":---"`` for left, ``":---:"`` for center, ``"---:"`` for right
            and plain ``"---"`` when the column has no explicit alignment.
        """
        align = self.align.get(index)
        if align == "center":
            return ":" + "-" * (width - 2) + ":"
        if align == "right":
            return "-" * (width - 1) + ":"
        if align == "left":
            return ":" + "-" * (width - 1)
        return "-" * width

    def render(self) -> str:
        """Render the table as Markdown with padded, aligned columns.

        Returns
        -------
        str
            Header line, separator line and one line per row, joined by
            newlines, without a trailing newline.
        """
        widths = self._column_widths()

        def line(cells: Sequence[str]) -> str:
            padded = [_pad(cell, widths[i], self.align.get(i)) for i, cell in enumerate(cells)]
            return "| " + " | ".join(padded) + " |"

        separators = [self._separator_cell(i, width) for i, width in enumerate(widths)]
        out = [line(self.headers), "| " + " | ".join(separators) + " |"]
        out.extend(line(row) for row in self._rows)
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()


def render_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    align: Optional[Mapping[int, str]] = None,
) -> str:
    """Render headers and rows as a Markdown table in one call.

    Parameters
    ----------
    headers : sequence of str
        Column titles.
    rows : iterable of sequence
        Row values; see :meth:`Table.add_row`.
    align : mapping of int to str, optional
        ``"left"``, ``"center"`` or ``"right"`` per column index.

    Returns
    -------
    str
        The rendered table.
    """
    table = Table(headers, align)
    for row in rows:
        table.add_row(*row)
    return table.render()


def _split_row(line: str) -> List[str]:
    stripped = line.strip()
    if stripped.startswith("|"):
        stripped = stripped[1:]
    if stripped.endswith("|") and not stripped.endswith("\\|"):
        stripped = stripped[:-1]
    cells = re.split(r"(?<!\\)\|", stripped)
    return [cell.strip().replace("\\|", "|") for cell in cells]


def parse_table(markdown: str) -> Table:
    """Parse a Markdown table back into a :class:`Table`.

    Parameters
    ----------
    markdown : str
        The table text; blank lines around it are ignored.

    Returns
    -------
    Table
        Headers, alignment from the separator row, and the rows.

    Raises
    ------
    ValueError
        If the second line is not a separator row such as ``|---|:--:|``.
    """
    lines = [line for line in markdown.strip().splitlines() if line.strip()]
    if len(lines) < 2 or not _SEPARATOR_RE.match(lines[1]):
        raise ValueError("not a Markdown table: missing separator row")
    align = {}
    for index, spec in enumerate(_split_row(lines[1])):
        if spec.startswith(":") and spec.endswith(":"):
            align[index] = "center"
        elif spec.endswith(":"):
            align[index] = "right"
        elif spec.startswith(":"):
            align[index] = "left"
    table = Table(_split_row(lines[0]), align)
    for line in lines[2:]:
        table.add_row(*_split_row(line))
    return table
