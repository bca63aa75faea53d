"""docs/architecture.md draws every app of apps/: each has its row in the table of what it owns
and its place on the floors, and the floors are the import graph's (an app's floor is above
every app it imports)."""

import re
from pathlib import Path

import grimp

from config.import_rules import app_imports

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "architecture.md").read_text()


def apps() -> list[str]:
    return sorted(p.name for p in (ROOT / "apps").iterdir() if (p / "__init__.py").exists())


def floors() -> dict[str, int]:
    drawing = PAGE.split("## The floors", 1)[1].split("```")[1]
    found = {}
    for line in drawing.splitlines():
        number = re.match(r"\s*(\d+)\s", line)
        floor = int(number.group(1)) if number else -1
        # The apps a line stands: the names before any arrow of theirs.
        for part in re.split(r"\s{3,}", line.strip()):
            name = re.sub(r"^\d+\s+", "", part).split(" ")[0]
            if name in apps():
                found.setdefault(name, floor)
    return found


def test_every_app_has_its_row():
    table = PAGE.split("## The apps and what each owns", 1)[1].split("## ", 1)[0]
    rows = " ".join(line.split("|")[1] for line in table.splitlines() if line.startswith("| `"))
    assert [app for app in apps() if f"`{app}`" not in rows] == []


def test_every_app_stands_on_a_floor_above_what_it_imports():
    standing = floors()
    assert sorted(standing) == apps()
    graph = grimp.build_graph("apps")
    arrows = app_imports(graph, {f"apps.{app}" for app in apps()})
    wrong = [
        f"{source} (floor {standing[source[5:]]}) imports {target} (floor {standing[target[5:]]})"
        for source, targets in arrows.items()
        for target in targets
        if standing[source[5:]] <= standing[target[5:]]
    ]
    assert wrong == []
