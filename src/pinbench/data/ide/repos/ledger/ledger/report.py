"""Plain-text and CSV reports over a :class:`~ledger.accounts.Ledger`."""

from __future__ import annotations

import csv
import datetime as dt
from collections import OrderedDict
from typing import Dict, Iterable, List, Sequence, Tuple

from ledger.accounts import ACCOUNT_KINDS, Account, Ledger
from ledger.money import Money

TrialRow = Tuple[str, Money, Money]


def trial_balance(ledger: Ledger) -> List[TrialRow]:
    """Compute the trial balance of every open account.

    An account's raw balance (debits minus credits) is its normal balance
    times :meth:`~ledger.accounts.Account.normal_sign`; it goes in the debit
    column when positive and in the credit column, negated, when negative.
    Accounts are listed by kind, then by name.

    Args:
        ledger: The ledger to report on.

    Returns:
        ``(account name, debit, credit)`` rows; one of the two amounts is
        always zero.
    """
    zero = Money.zero(ledger.currency)
    rows: List[TrialRow] = []
    for kind in ACCOUNT_KINDS:
        for account in sorted(ledger.accounts_by_kind(kind), key=lambda acc: acc.name):
            signed = account.balance * account.normal_sign()
            if signed < zero:
                rows.append((account.name, zero, -signed))
            else:
                rows.append((account.name, signed, zero))
    return rows


def totals(rows: Iterable[TrialRow], currency: str = "USD") -> Tuple[Money, Money]:
    debit = Money.zero(currency)
    credit = Money.zero(currency)
    for _, row_debit, row_credit in rows:
        debit = debit + row_debit
        credit = credit + row_credit
    return debit, credit


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(value) for value in row] for row in rows]
    widths = [len(header) for header in headers]
    for row in cells:
        widths = [max(width, len(cell)) for width, cell in zip(widths, row)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths))]
    lines.append("  ".join("-" * w for w in widths))
    for row in cells:
        lines.append("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
    return "\n".join(lines)


def render_trial_balance(ledger: Ledger) -> str:
    """Render :func:`trial_balance` as an aligned text table with a total row.

    Args:
        ledger: The ledger to report on.

    Returns:
        The table, one line per account plus a separator and a total line.
    """
    rows = trial_balance(ledger)
    debit, credit = totals(rows, ledger.currency)
    width = max((len(name) for name, _, _ in rows), default=0)
    table_rows = [(name, d.amount, c.amount) for name, d, c in rows]
    table_rows.append(("TOTAL", debit.amount, credit.amount))
    return format_table(("account", "debit", "credit"), table_rows)


def monthly_totals(account: Account) -> Dict[str, Money]:
    """Sum an account's entries per calendar month.

    Parameters
    ----------
    account : Account
        The account whose entries are summed; signs are raw (debits
        positive), not adjusted to the account's normal side.

    Returns
    -------
    dict of str to Money
        An ordered mapping from ``"YYYY-MM"`` to the month's net amount,
        oldest month first. Months without entries are absent.
    """
    result: Dict[str, Money] = OrderedDict()
    for entry in account.entries():
        key = entry.date.strftime("%Y-%m")
        previous = result.get(key, Money.zero(account.currency))
        result[key] = previous + entry.amount
    return result


def last_activity(account: Account) -> dt.date:
    for entry in account.entries():
        latest = entry.date
    return latest


def export_csv(ledger: Ledger, path: str) -> int:
    """Write every posted leg to a CSV file.

    One row per leg, in transaction date order, with the columns
    ``date, memo, account, amount, currency``.

    :param ledger: The ledger whose journal is exported.
    :param path: Destination file; overwritten if it exists.
    :returns: The number of data rows written (header excluded).
    """
    count = 0
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["date", "memo", "account", "amount", "currency"])
        for txn in ledger.iter_transactions():
            for name, amount in txn.legs:
                writer.writerow([txn.date.isoformat(), txn.memo, name, amount.amount, amount.currency])
                count += 1
    return count
