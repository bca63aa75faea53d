"""Every document the code and the docs cite is in the repository.

A path under ``docs/`` written in code, tests, settings, scripts or the docs themselves
(``docs/design.md``, ``docs/decisions/callbacks.md``, a folder such as ``docs/decisions/``)
names a file of this checkout, and nothing cites a document that lives outside it by name
(the design notes are ``docs/design.md``). Template names (``docs/layout.html``) and URL
paths (``/docs/calls``) are not documents and are not read as such.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WHERE = ("apps", "config", "tests", "docs", "scripts", "bench", ".ci")
FILES = ("README.md", "Makefile", ".importlinter", "Procfile")
SUFFIXES = {".py", ".md", ".html", ".txt", ".toml", ".cfg", ".ini", ".yml", ".yaml", ".json", ".sh", ""}
# docs/... not inside another path or URL, ending in a document or a folder.
CITED = re.compile(r"(?<![\w/.{}-])docs/(?:[\w.-]+/)*(?:[\w.-]+\.md\b|(?=[\s`'\")]))")
OUTSIDE = re.compile(r"\bDESIGN\b")


def texts():
    for name in FILES:
        if (ROOT / name).exists():
            yield ROOT / name
    for where in WHERE:
        for path in (ROOT / where).rglob("*"):
            if path.is_file() and path.suffix in SUFFIXES and "screenshots" not in path.parts:
                yield path


def citations():
    for path in texts():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for match in CITED.finditer(line):
                yield f"{path.relative_to(ROOT)}:{number}", match.group(0)
            if OUTSIDE.search(line) and path != Path(__file__):
                yield f"{path.relative_to(ROOT)}:{number}", "DESIGN"


def test_there_are_citations_to_check():
    cited = {target for _where, target in citations()}
    assert {"docs/design.md", "docs/spec.md", "docs/decisions/"} <= cited


def test_every_cited_document_exists():
    missing = [f"{where} cites {target}" for where, target in citations() if not (ROOT / target).exists()]
    assert missing == []
