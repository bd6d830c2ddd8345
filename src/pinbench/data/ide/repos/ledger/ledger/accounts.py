"""Accounts, transactions and the ledger that posts them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ledger.money import Money

ACCOUNT_KINDS = ("asset", "liability", "equity", "income", "expense")
DEBIT_NORMAL = frozenset({"asset", "expense"})


class InsufficientFunds(Exception):
    """Raised when a withdrawal would take an account past its overdraft limit."""


class UnbalancedTransaction(ValueError):
    """Raised when a transaction's legs do not sum to zero."""


@dataclass(frozen=True)
class Entry:
    """One posting to one account: positive amounts are debits."""

    date: dt.date
    amount: Money
    memo: str = ""


class Account:
    """A named account holding a chronological list of entries."""

    def __init__(
        self,
        name: str,
        kind: str = "asset",
        currency: str = "USD",
        tags=[],
        overdraft_limit: Optional[Money] = None,
    ) -> None:
        if kind not in ACCOUNT_KINDS:
            raise ValueError(f"unknown account kind: {kind}")
        self.name = name
        self.kind = kind
        self.currency = currency.upper()
        self.tags = tuple(tags)
        self.overdraft_limit = overdraft_limit or Money.zero(self.currency)
        self._entries: List[Entry] = []

    def __repr__(self) -> str:
        return f"Account({self.name!r}, {self.kind!r}, {self.currency!r})"

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> Account:
        name = str(data["name"])
        kind = str(data.get("kind", "asset"))
        currency = str(data.get("currency", "USD"))
        tags = [str(tag) for tag in data.get("tags") or ()]
        return cls(name, kind, currency, tags)

    def normal_sign(self) -> int:
        """Return +1 for debit-normal accounts and -1 for credit-normal ones.

        Assets and expenses grow with debits; liabilities, equity and income
        grow with credits. Reports multiply raw entry sums by this sign so
        that every account shows a positive balance in its normal state.

        Returns:
            ``1`` or ``-1``.
        """
        if self.kind in DEBIT_NORMAL:
            return 1
        else:
            return -1

    @property
    def balance(self) -> Money:
        """The balance in the account's normal direction."""
        raw = Money.total((entry.amount for entry in self._entries), self.currency)
        return raw * self.normal_sign()

    def record(self, entry: Entry) -> None:
        if entry.amount.currency != self.currency:
            raise ValueError(f"{self.name} holds {self.currency}, not {entry.amount.currency}")
        self._entries.append(entry)
        self._entries.sort(key=lambda item: item.date)

    def entries(self, since: Optional[dt.date] = None) -> Iterator[Entry]:
        """Yield the account's entries in date order.

        Args:
            since: If given, skip entries dated before this day.

        Yields:
            Entries, oldest first.
        """
        for entry in self._entries:
            if since is not None and entry.date < since:
                continue
            yield entry

    def withdraw(self, amount: Money, date: dt.date, memo: str = "") -> Entry:
        """Take ``amount`` out of an asset account, honouring its overdraft limit.

        Args:
            amount: A positive amount in the account's currency.
            date: Booking date of the withdrawal.
            memo: Free text stored on the entry.

        Returns:
            The credit entry that was recorded.

        Raises:
            InsufficientFunds: If the balance after the withdrawal would be
                below ``-overdraft_limit``.
        """
        remaining = self.balance - amount
        if remaining < -self.overdraft_limit:
            raise InsufficientFunds(f"{self.name}: balance {self.balance}, requested {amount}")
        entry = Entry(date, -amount * self.normal_sign(), memo)
        self.record(entry)
        return entry


@dataclass
class Transaction:
    """A dated set of legs, ``(account name, signed amount)``, that must balance."""

    date: dt.date
    memo: str
    legs: List[Tuple[str, Money]] = field(default_factory=list)

    def debit(self, account: str, amount: Money) -> Transaction:
        self.legs.append((account, amount))
        return self

    def credit(self, account: str, amount: Money) -> Transaction:
        self.legs.append((account, -amount))
        return self

    def validate(self) -> None:
        """Check that the transaction can be posted.

        A transaction needs at least two legs, all in one currency, whose
        signed amounts add up to exactly zero.

        Raises:
            UnbalancedTransaction: If any of those conditions fails.
        """
        if len(self.legs) < 2:
            raise UnbalancedTransaction(f"{self.memo!r} has fewer than two legs")
        currencies = {amount.currency for _, amount in self.legs}
        if len(currencies) != 1:
            raise UnbalancedTransaction(f"{self.memo!r} mixes {sorted(currencies)}")
        total = Money.total((amount for _, amount in self.legs), currencies.pop())
        if not total.is_zero():
            raise UnbalancedTransaction(f"{self.memo!r} is off by {total}")


class Ledger:
    """A chart of accounts plus the journal of posted transactions."""

    def __init__(self, currency: str = "USD") -> None:
        self.currency = currency.upper()
        self.accounts: Dict[str, Account] = {}
        self.journal: List[Transaction] = []

    def open_account(self, name: str, kind: str = "asset", **options: Any) -> Account:
        if name in self.accounts:
            raise ValueError(f"account {name!r} already exists")
        account = Account(name, kind, self.currency, **options)
        self.accounts[name] = account
        return account

    def find(self, name: str) -> Optional[Account]:
        return self.accounts.get(name)

    def balance_of(self, name: str) -> Money:
        return self.find(name).balance

    def accounts_by_kind(self, kind: str) -> List[Account]:
        return [account for account in self.accounts.values() if account.kind == kind]

    def post(self, transaction: Transaction) -> None:
        """Validate a transaction and record one entry per leg.

        Args:
            transaction: The transaction to post; its account names must exist.

        Raises:
            UnbalancedTransaction: If :meth:`Transaction.validate` fails.
            KeyError: If a leg names an account that is not open.
        """
        transaction.validate()
        missing = [name for name, _ in transaction.legs if name not in self.accounts]
        if missing:
            raise KeyError(f"unknown accounts: {', '.join(missing)}")
        for name, amount in transaction.legs:
            self.accounts[name].record(Entry(transaction.date, amount, transaction.memo))
        self.journal.append(transaction)

    def transfer(
        self, source: str, target: str, amount: Money, date: dt.date, memo: str = ""
    ) -> Transaction:
        txn = Transaction(date, memo or f"transfer {source} -> {target}")
        txn.debit(target, amount).credit(source, amount)
        self.post(txn)
        return txn

    def iter_transactions(
        self, start: Optional[dt.date] = None, end: Optional[dt.date] = None
    ) -> Iterator[Transaction]:
        """Yield posted transactions whose date falls in ``[start, end]``.

        Args:
            start: First day to include; open-ended when ``None``.
            end: Last day to include; open-ended when ``None``.

        Yields:
            Transactions in date order, then in posting order.
        """
        for txn in sorted(self.journal, key=lambda item: item.date):
            if start is not None and txn.date < start:
                continue
            if end is not None and txn.date > end:
                break
            yield txn
