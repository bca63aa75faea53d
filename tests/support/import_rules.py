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
