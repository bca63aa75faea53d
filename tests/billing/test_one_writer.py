"""One writer of the ledger (apps/billing/ledger.py): nothing else in the code writes a ledger row or a
balance, so the one lock and the one chain rule hold for every movement of an account's credit."""

import ast
import re

from tests.support.code_scan import APPS, WriteFinder, callee, offenders, writes_in

WRITER = "billing/ledger.py"
MODELS = {"Balance", "BalanceTransaction"}
# Related managers that reach the same tables from a user.
RELATED = {"balance_transactions"}
TABLES = ("billing_balance", "billing_balancetransaction")
TABLE_NAMED = re.compile(r"\bbilling_balance(transaction)?\b", re.IGNORECASE)
WRITE_METHODS = {
    "create",
    "update",
    "bulk_create",
    "bulk_update",
    "delete",
    "get_or_create",
    "update_or_create",
    "save",
}
STATEMENT_BUILDERS = {"insert_statement", "update_row_statement"}

# Where a ledger model is built in memory but never saved, and why.
ALLOWED = {
    ("billing/examples.py", "*"): "OpenAPI examples, never saved",
    ("billing/selectors.py", "balance_get"): "the balance of 0 of an account without a ledger, shown and never saved",
}


class LedgerWrites(WriteFinder):
    """``Balance.objects...create/update/delete...``, ``user.balance_transactions.create(...)``,
    ``insert_statement``/``update_row_statement`` of a ledger model, a ledger model built with
    ``Balance(...)``, and SQL text naming the ledger's tables."""

    def visit_Call(self, node):
        func, name = node.func, callee(node.func)
        text = ast.unparse(func)
        reaches = any(f"{model}.objects" in text for model in MODELS) or any(f".{r}" in text for r in RELATED)
        first = node.args[0] if node.args else None
        if (
            (name in WRITE_METHODS and reaches)
            or (name in MODELS and isinstance(func, ast.Name))
            or (name in STATEMENT_BUILDERS and isinstance(first, ast.Name) and first.id in MODELS)
        ):
            self.note(node)
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and TABLE_NAMED.search(node.value):
            self.note(node)


def relevant(source: str) -> bool:
    return any(word in source for word in (*MODELS, *RELATED, *TABLES))


def test_nothing_but_the_ledger_writes_ledger_rows_or_balances():
    found = offenders(LedgerWrites, allowed=ALLOWED, relevant=relevant, writer=WRITER)
    assert found == [], "write the ledger through apps/billing/ledger.py: " + ", ".join(found)


def test_the_writer_is_where_the_check_says():
    assert writes_in(LedgerWrites, (APPS / WRITER).read_text()), "the check looks for nothing the writer does"


def test_the_check_sees_a_writer_it_does_not_allow():
    sneaks = {
        "orm": "def orm(u):\n    Balance.objects.filter(user=u).update(amount=0)\n",
        "related": "def related(u):\n    u.balance_transactions.create(amount=5)\n",
        "built": "def built(u):\n    BalanceTransaction(user=u, amount=5).save()\n",
        "statement": "def statement(c):\n    update_row_statement(Balance, 1, c, amount=0)\n",
        "raw": "def raw(cursor):\n    cursor.execute('UPDATE billing_balance SET amount = 0')\n",
    }
    for name, source in sneaks.items():
        assert name in [function for function, _line in writes_in(LedgerWrites, source)], name
