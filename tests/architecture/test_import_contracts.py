"""The import contracts of .importlinter hold, and each of them is able to fail.

For every contract, one import that breaks it is added to a scratch copy of
apps/, and lint-imports must then name that contract among the broken ones.
A contract that no import can break would pass CI while guarding nothing.
"""

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def contracts() -> dict[str, configparser.SectionProxy]:
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    return {
        name.split(":", 2)[2]: config[name] for name in config.sections() if name.startswith("importlinter:contract:")
    }


def lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


def a_breaking_import(contract) -> tuple[str, str]:
    """(module that imports, module imported) that the contract forbids."""
    if contract["type"] == "independence":
        first, second = lines(contract["modules"])[:2]
        return first, second
    return lines(contract["source_modules"])[0], lines(contract["forbidden_modules"])[0]


def run_lint(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_contracts_hold():
    done = run_lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", sorted(contracts()))
def test_each_contract_catches_a_deliberate_break(name, tmp_path):
    contract = contracts()[name]
    importer, imported = a_breaking_import(contract)
    shutil.copytree(ROOT / "apps", tmp_path / "apps", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    package = tmp_path / Path(*importer.split("."))
    (package / "deliberate_break.py").write_text(f"import {imported}  # noqa\n")
    done = run_lint(tmp_path)
    assert done.returncode != 0, done.stdout
    broken = done.stdout.split("Broken contracts", 1)[-1]
    assert contract["name"][:40] in broken, done.stdout
