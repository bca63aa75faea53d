"""One writer of the ledger (apps/billing/ledger.py): nothing else in the code writes a ledger row or a
balance, so the one lock and the one chain rule hold for every movement of an account's credit."""

import ast
import re
from pathlib import Path

APPS = Path(__file__).resolve().parents[2] / "apps"
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


class LedgerWrites(ast.NodeVisitor):
    """``Balance.objects...create/update/delete...``, ``user.balance_transactions.create(...)``,
    ``insert_statement``/``update_row_statement`` of a ledger model, a ledger model built with
    ``Balance(...)``, and SQL text naming the ledger's tables."""

    def __init__(self):
        self.found: list[tuple[str, int]] = []
        self.function = "*"

    def visit_FunctionDef(self, node):
        outer, self.function = self.function, node.name
        self.generic_visit(node)
        self.function = outer

    def visit_Call(self, node):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        text = ast.unparse(func)
        reaches = any(f"{model}.objects" in text for model in MODELS) or any(f".{r}" in text for r in RELATED)
        first = node.args[0] if node.args else None
        if (
            (name in WRITE_METHODS and reaches)
            or (name in MODELS and isinstance(func, ast.Name))
            or (name in STATEMENT_BUILDERS and isinstance(first, ast.Name) and first.id in MODELS)
        ):
            self.found.append((self.function, node.lineno))
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and TABLE_NAMED.search(node.value):
            self.found.append((self.function, node.lineno))


def writers_in(source: str) -> list[tuple[str, int]]:
    visitor = LedgerWrites()
    visitor.visit(ast.parse(source))
    return visitor.found


def test_nothing_but_the_ledger_writes_ledger_rows_or_balances():
    offenders = []
    for path in sorted(APPS.rglob("*.py")):
        where = str(path.relative_to(APPS))
        if "migrations" in path.parts or where == WRITER:
            continue
        source = path.read_text()
        if not any(word in source for word in (*MODELS, *RELATED, *TABLES)):
            continue
        for function, line in writers_in(source):
            if (where, function) not in ALLOWED and (where, "*") not in ALLOWED:
                offenders.append(f"{where}:{line} in {function}")
    assert offenders == [], "write the ledger through apps/billing/ledger.py: " + ", ".join(offenders)


def test_the_writer_is_where_the_check_says():
    assert writers_in((APPS / WRITER).read_text()), "the check looks for nothing the writer does"


def test_the_check_sees_a_writer_it_does_not_allow():
    sneaks = {
        "orm": "def orm(u):\n    Balance.objects.filter(user=u).update(amount=0)\n",
        "related": "def related(u):\n    u.balance_transactions.create(amount=5)\n",
        "built": "def built(u):\n    BalanceTransaction(user=u, amount=5).save()\n",
        "statement": "def statement(c):\n    update_row_statement(Balance, 1, c, amount=0)\n",
        "raw": "def raw(cursor):\n    cursor.execute('UPDATE billing_balance SET amount = 0')\n",
    }
    for name, source in sneaks.items():
        assert name in [function for function, _line in writers_in(source)], name
