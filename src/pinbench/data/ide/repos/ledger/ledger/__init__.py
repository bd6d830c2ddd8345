"""ledger: a tiny double-entry bookkeeping library."""

from ledger.accounts import (
    Account,
    Entry,
    InsufficientFunds,
    Ledger,
    Transaction,
    UnbalancedTransaction,
)
from ledger.money import CurrencyMismatch, Money, parse_amount

__all__ = [
    "Account",
    "CurrencyMismatch",
    "Entry",
    "InsufficientFunds",
    "Ledger",
    "Money",
    "Transaction",
    "UnbalancedTransaction",
    "parse_amount",
]

__version__ = "0.3.1"
