import datetime as dt

import pytest

from ledger.accounts import (
    Account,
    InsufficientFunds,
    Ledger,
    Transaction,
    UnbalancedTransaction,
)
from ledger.money import Money


def test_balances_after_posting(book, usd):
    assert book.balance_of("cash") == usd("3100.00")
    assert book.balance_of("equity") == usd("1000.00")
    assert book.balance_of("salary") == usd("2500.00")
    assert book.balance_of("rent") == usd("400.00")


@pytest.mark.parametrize(
    "kind, sign",
    [("asset", 1), ("expense", 1), ("liability", -1), ("equity", -1), ("income", -1)],
)
def test_normal_sign(kind, sign):
    assert Account("x", kind).normal_sign() == sign


def test_unknown_kind_is_rejected():
    with pytest.raises(ValueError):
        Account("x", "savings")


def test_from_dict():
    account = Account.from_dict({"name": "visa", "kind": "liability", "tags": ["card"]})
    assert (account.name, account.kind, account.tags) == ("visa", "liability", ("card",))
    assert account.balance == Money.zero()


class TestTransactions:
    def test_unbalanced_transaction_is_rejected(self, book, usd):
        txn = Transaction(dt.date(2023, 3, 1), "typo").debit("rent", usd("400")).credit(
            "cash", usd("40")
        )
        with pytest.raises(UnbalancedTransaction, match="off by"):
            book.post(txn)
        assert book.balance_of("rent") == usd("400.00")

    def test_single_leg_is_rejected(self, usd):
        txn = Transaction(dt.date(2023, 3, 1), "half").debit("cash", usd("1"))
        with pytest.raises(UnbalancedTransaction, match="fewer than two legs"):
            txn.validate()

    def test_mixed_currencies_are_rejected(self, usd):
        txn = Transaction(dt.date(2023, 3, 1), "fx").debit("a", usd("1")).credit(
            "b", Money("1", "EUR")
        )
        with pytest.raises(UnbalancedTransaction, match="mixes"):
            txn.validate()

    def test_unknown_account(self, book, usd):
        with pytest.raises(KeyError, match="nowhere"):
            book.transfer("cash", "nowhere", usd("1"), dt.date(2023, 3, 1))

    def test_transfer_posts_both_legs(self, book, usd):
        book.open_account("savings", "asset")
        book.transfer("cash", "savings", usd("100"), dt.date(2023, 3, 2))
        assert book.balance_of("savings") == usd("100.00")
        assert book.balance_of("cash") == usd("3000.00")

    def test_iter_transactions_window(self, book):
        memos = [t.memo for t in book.iter_transactions(dt.date(2023, 1, 2), dt.date(2023, 1, 31))]
        assert memos == ["january rent"]
        assert len(list(book.iter_transactions())) == 3


class TestWithdraw:
    def test_within_balance(self, book, usd):
        cash = book.find("cash")
        entry = cash.withdraw(usd("100"), dt.date(2023, 2, 3), "atm")
        assert entry.amount == usd("-100.00")
        assert cash.balance == usd("3000.00")

    def test_overdraft_limit_is_honoured(self, usd):
        account = Account("checking", overdraft_limit=usd("50"))
        account.withdraw(usd("50"), dt.date(2023, 1, 1))
        with pytest.raises(InsufficientFunds):
            account.withdraw(usd("0.01"), dt.date(2023, 1, 2))

    def test_entries_since(self, book):
        cash = book.find("cash")
        dates = [entry.date for entry in cash.entries(since=dt.date(2023, 1, 5))]
        assert dates == [dt.date(2023, 1, 5), dt.date(2023, 2, 1)]


def test_duplicate_account_name(book):
    with pytest.raises(ValueError, match="already exists"):
        book.open_account("cash")


def test_empty_ledger_find():
    assert Ledger().find("cash") is None
