"""The suite's own layout: shared helpers live in tests/support/, and no test imports a
conftest or another test module (a fixture is found by pytest, a helper by its import)."""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def imported_modules(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    package = ".".join(path.relative_to(TESTS.parent).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                yield ".".join([*base, node.module] if node.module else base)
            elif node.module:
                yield node.module


def test_no_test_imports_a_conftest_or_another_test_module():
    offenders = []
    for path in TESTS.rglob("*.py"):
        for module in imported_modules(path):
            last = module.rsplit(".", 1)[-1]
            if module.startswith("tests") and (last == "conftest" or last.startswith("test_")):
                offenders.append(f"{path.relative_to(TESTS.parent)} imports {module}")
    assert offenders == []


def test_there_is_one_envelope_assertion():
    """The assertion that a response is one error of the envelope; the fuzzers' property check
    (any registered code) and the raw-HTTP check of the live tests have names of their own."""
    defined = [
        f"{path.relative_to(TESTS.parent)}:{node.name}"
        for path in TESTS.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef) and node.name in {"assert_error", "envelope", "assert_envelope"}
    ]
    assert defined == ["tests/support/envelope.py:assert_error"]
