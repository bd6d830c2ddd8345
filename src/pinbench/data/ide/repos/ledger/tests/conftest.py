import datetime as dt

import pytest

from ledger.accounts import Ledger, Transaction
from ledger.money import Money


@pytest.fixture
def usd():
    """Shorthand for building USD amounts: ``usd("12.50")``."""

    def make(amount):
        return Money(amount, "USD")

    return make


@pytest.fixture
def book():
    """A small ledger with an opening balance, rent and a salary."""

    def dollars(amount):
        return Money(amount, "USD")

    ledger = Ledger("USD")
    ledger.open_account("cash", "asset", tags=["bank"])
    ledger.open_account("equity", "equity")
    ledger.open_account("rent", "expense")
    ledger.open_account("salary", "income")
    ledger.post(
        Transaction(dt.date(2023, 1, 1), "opening balance")
        .debit("cash", dollars("1000.00"))
        .credit("equity", dollars("1000.00"))
    )
    ledger.post(
        Transaction(dt.date(2023, 1, 5), "january rent")
        .debit("rent", dollars("400.00"))
        .credit("cash", dollars("400.00"))
    )
    ledger.post(
        Transaction(dt.date(2023, 2, 1), "january salary")
        .debit("cash", dollars("2500.00"))
        .credit("salary", dollars("2500.00"))
    )
    return ledger
