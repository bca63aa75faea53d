"""What docs/spec.md itself lists, read from its text, so the docs tests check the contract's words."""

import re
from pathlib import Path

SPEC = Path(__file__).resolve().parents[2] / "docs" / "spec.md"


def section(number: str) -> str:
    """The text of section ``number`` (for example "7.2") up to the next heading of any level."""
    text = SPEC.read_text()
    match = re.search(rf"^#+ {re.escape(number)} .*?$(.*?)(?=^#+ )", text, re.M | re.S)
    assert match, f"no section {number} in docs/spec.md"
    return match.group(1)


def first_column(text: str) -> list[str]:
    """The first cell of every table row that is a snake_case code (headers and rules skipped)."""
    codes = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if cells and re.fullmatch(r"[a-z][a-z_]+", cells[0]) and cells[0] not in {"code", "error", "type"}:
            codes.append(cells[0])
    return codes


def envelope_codes() -> list[str]:
    """The codes of SPEC 7.2."""
    return first_column(section("7.2"))


def oauth_codes() -> set[str]:
    """The codes of SPEC 7.3: its tables' first column and the codes its registration paragraph names."""
    text = section("7.3")
    named = set(re.findall(r"`(invalid_[a-z_]+|temporarily_unavailable)`", text))
    return set(first_column(text)) | named
