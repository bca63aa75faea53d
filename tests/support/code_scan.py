"""Reading apps/ as syntax trees, for the tests that keep one writer of a kind of row."""

import ast
from collections.abc import Callable
from pathlib import Path

APPS = Path(__file__).resolve().parents[2] / "apps"


class WriteFinder(ast.NodeVisitor):
    """Collects ``found``: (function, line) of each write a subclass notes, ``*`` outside any function."""

    def __init__(self):
        self.found: list[tuple[str, int]] = []
        self.function = "*"

    def visit_FunctionDef(self, node):
        outer, self.function = self.function, node.name
        self.generic_visit(node)
        self.function = outer

    def note(self, node) -> None:
        self.found.append((self.function, node.lineno))


def callee(func) -> str:
    """The name a call calls: ``update`` of ``x.objects.update``, ``Call`` of ``Call(...)``."""
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def writes_in(finder: type[WriteFinder], source: str) -> list[tuple[str, int]]:
    visitor = finder()
    visitor.visit(ast.parse(source))
    return visitor.found


def offenders(
    finder: type[WriteFinder], *, allowed: dict, relevant: Callable[[str], bool], writer: str = ""
) -> list[str]:
    """Every write ``finder`` sees in apps/ (migrations and the ``writer`` module aside) that
    ``allowed`` does not list by (module, function) or (module, ``*``)."""
    found = []
    for path in sorted(APPS.rglob("*.py")):
        where = str(path.relative_to(APPS))
        if "migrations" in path.parts or where == writer:
            continue
        source = path.read_text()
        if not relevant(source):
            continue
        for function, line in writes_in(finder, source):
            if (where, function) not in allowed and (where, "*") not in allowed:
                found.append(f"{where}:{line} in {function}")
    return found
