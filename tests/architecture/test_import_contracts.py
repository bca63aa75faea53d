"""The import contracts of .importlinter hold, each of them is able to fail, and they cover new apps.

For every contract, one import that breaks it is added to a scratch copy of apps/, and
lint-imports must then name that contract among the broken ones. A contract that no import
can break would pass CI while guarding nothing. The breaking import is made by, or to, an
app that is in no list of .importlinter (``apps.scratch``), so each contract is shown to
hold an app written after it.
"""

import configparser
from pathlib import Path

import pytest

from tests.support.import_rules import ROOT, broken_contracts, run_lint, scratch_copy

NEW_APP = "apps.scratch"


def config() -> configparser.ConfigParser:
    parsed = configparser.ConfigParser()
    parsed.read(ROOT / ".importlinter")
    return parsed


def contracts() -> dict[str, configparser.SectionProxy]:
    parsed = config()
    return {
        name.split(":", 2)[2]: parsed[name] for name in parsed.sections() if name.startswith("importlinter:contract:")
    }


def lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


def a_resource_app() -> str:
    not_resources = set(lines(config()["importlinter"]["not_resource_apps"]))
    apps = sorted(f"apps.{p.name}" for p in (ROOT / "apps").iterdir() if (p / "__init__.py").exists())
    return next(app for app in apps if app not in not_resources)


def a_private_module(package: str) -> str:
    """A module of the package other than its public one."""
    folder = ROOT / Path(*package.split("."))
    return min(p.stem for p in folder.glob("*.py") if p.stem not in {"__init__", "public"})


def a_breaking_import(contract) -> list[tuple[str, str]]:
    """(module that imports, module imported) pairs that break the contract, one side a new app."""
    kind = contract["type"]
    if kind == "forbidden":
        return [(lines(contract["source_modules"])[0], lines(contract["forbidden_modules"])[0])]
    if kind == "only":
        return [(lines(contract["source_modules"])[0], NEW_APP)]
    if kind == "protected":
        package = lines(contract["protected_modules"])[0].removesuffix(".*")
        return [(NEW_APP, f"{package}.{a_private_module(package)}")]
    if kind == "resources_independent":
        return [(NEW_APP, a_resource_app())]
    if kind == "resources_forbidden":
        return [(NEW_APP, lines(contract["forbidden_modules"])[0])]
    if kind == "no_resources":
        return [(lines(contract["source_modules"])[0], NEW_APP)]
    if kind == "apps_acyclic":
        return [(NEW_APP, "apps.core"), ("apps.core", NEW_APP)]
    raise AssertionError(f"no breaking import known for contract type {kind!r}")


def a_breaking_module(contract) -> list[tuple[str, str]]:
    """(package, source of a module written into it) that break the contract."""
    if contract["type"] == "no_registry_lookups":
        return [(NEW_APP, 'from django.apps import apps\n\nCall = apps.get_model("calls", "Call")\n')]
    return [(importer, f"import {imported}  # noqa\n") for importer, imported in a_breaking_import(contract)]


def with_a_new_app(tmp_path: Path) -> Path:
    """A scratch copy with an empty new app, ``apps.scratch``."""
    root = scratch_copy(tmp_path)
    new_app = root / "apps" / "scratch"
    new_app.mkdir()
    (new_app / "__init__.py").write_text("")
    (new_app / "models.py").write_text("")
    return root


def test_the_contracts_hold():
    done = run_lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_new_app_that_imports_nothing_breaks_no_contract(tmp_path):
    done = run_lint(with_a_new_app(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", sorted(contracts()))
def test_each_contract_catches_a_deliberate_break(name, tmp_path):
    contract = contracts()[name]
    root = with_a_new_app(tmp_path)
    for package, source in a_breaking_module(contract):
        with (root / Path(*package.split(".")) / "deliberate_break.py").open("a") as module:
            module.write(source)
    done = run_lint(root)
    assert done.returncode != 0, done.stdout
    assert contract["name"][:40] in broken_contracts(done), done.stdout
