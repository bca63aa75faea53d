"""Writes of billing. Every movement of a balance is a row appended by the one writer of the
ledger, apps/billing/ledger.py; this is where the rest of the project asks for one."""

from .ledger import DESCRIPTION_MAX, SOURCE_MAX, TICK, LedgerError, ledger_append

__all__ = ["DESCRIPTION_MAX", "SOURCE_MAX", "TICK", "LedgerError", "ledger_append"]
