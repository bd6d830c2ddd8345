import csv
import datetime as dt

import pytest

from ledger.report import (
    export_csv,
    format_table,
    last_activity,
    monthly_totals,
    render_trial_balance,
    totals,
    trial_balance,
)


def test_trial_balance_columns(book, usd):
    rows = {name: (debit, credit) for name, debit, credit in trial_balance(book)}
    assert rows["cash"] == (usd("3100.00"), usd("0"))
    assert rows["salary"] == (usd("0"), usd("2500.00"))
    assert rows["equity"] == (usd("0"), usd("1000.00"))


def test_trial_balance_totals_match(book):
    debit, credit = totals(trial_balance(book))
    assert debit == credit


def test_render_trial_balance(book):
    text = render_trial_balance(book)
    lines = text.splitlines()
    assert lines[0].split() == ["account", "debit", "credit"]
    assert lines[-1].split() == ["TOTAL", "3500.00", "3500.00"]


@pytest.mark.parametrize(
    "rows, expected_width",
    [([("a", 1)], 1), ([("long name", 12345)], 9)],
)
def test_format_table_widths(rows, expected_width):
    header, rule, *_ = format_table(("name", "n"), rows).splitlines()
    assert rule.split()[0] == "-" * max(expected_width, 4)
    assert header.startswith("name")


def test_monthly_totals(book, usd):
    months = monthly_totals(book.find("cash"))
    assert list(months) == ["2023-01", "2023-02"]
    assert months["2023-01"] == usd("600.00")


def test_last_activity(book):
    assert last_activity(book.find("rent")) == dt.date(2023, 1, 5)


def test_export_csv(book, tmp_path):
    target = tmp_path / "journal.csv"
    assert export_csv(book, str(target)) == 6
    with open(target, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["memo"] == "opening balance"
    assert {row["currency"] for row in rows} == {"USD"}
