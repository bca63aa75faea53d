"""Running lint-imports (.importlinter) on the repository or on a scratch copy of apps/."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def scratch_copy(tmp_path: Path) -> Path:
    """apps/, .importlinter and the contract types (config/import_rules.py) under ``tmp_path``."""
    shutil.copytree(ROOT / "apps", tmp_path / "apps", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "__init__.py").write_text("")
    shutil.copy(ROOT / "config" / "import_rules.py", tmp_path / "config" / "import_rules.py")
    return tmp_path


def run_lint(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def broken_contracts(done: subprocess.CompletedProcess) -> str:
    """The part of lint-imports' report that lists the broken contracts."""
    return done.stdout.split("Broken contracts", 1)[-1]


# The modules that may look a model up in the app registry, and why: every other reach into
# another app's models goes through that app's selectors, where the import contracts see it.
GET_MODEL_ALLOWED = {
    "apps/audit/selectors.py": "names each event's application or key; both issuers import audit to record",
    "apps/core/pattern_indexes.py": "a migration operation: the models of the migration's own state",
    "apps/credentials/receivers.py": "the credential owners named by label in settings.BEARER_RESOLVERS",
}


def get_model_calls(root: Path) -> list[str]:
    """``path:line`` of each ``get_model(`` under ``root``/apps outside migrations and the allowed modules."""
    found = []
    for path in sorted((root / "apps").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if "/migrations/" in relative or relative in GET_MODEL_ALLOWED:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "get_model(" in line:
                found.append(f"{relative}:{number}")
    return found
