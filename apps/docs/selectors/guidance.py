"""The errors pages' rows: each registered code and type with what it means and what to do."""

from dataclasses import dataclass

from apps.core.envelope import error_body
from apps.core.errors import REGISTRY, ApiError

from .. import errors as docs_errors
from .facts import facts


@dataclass(frozen=True)
class ErrorRow:
    code: str
    status: int
    type: str
    message: str
    when: str
    action: str


def error_rows(known: dict | None = None) -> list[ErrorRow]:
    """Every code of the envelope's registry, in its order, with what it means and what to do."""
    known = known if known is not None else facts()
    rows = []
    for code, entry in REGISTRY.items():
        guidance = docs_errors.GUIDANCE.get(code)
        rows.append(
            ErrorRow(
                code=code,
                status=entry.status,
                type=entry.type,
                message=entry.message,
                # A code registered without its sentences still gets its row (and its anchor);
                # tests/docs fail until the sentences are written.
                when=guidance.when.format(**known) if guidance else entry.message,
                action=guidance.action.format(**known) if guidance else "",
            )
        )
    return rows


@dataclass(frozen=True)
class TypeRow:
    type: str
    statuses: list[int]
    when: str
    action: str


def type_rows() -> list[TypeRow]:
    return [
        TypeRow(
            type=name,
            statuses=sorted({e.status for e in REGISTRY.values() if e.type == name}),
            when=guidance.when,
            action=guidance.action,
        )
        for name, guidance in docs_errors.TYPE_GUIDANCE.items()
    ]


@dataclass(frozen=True)
class OAuthErrorRow:
    code: str
    cases: list[docs_errors.Case]
    action: str


def oauth_error_rows(known: dict | None = None) -> list[OAuthErrorRow]:
    known = known if known is not None else facts()
    return [
        OAuthErrorRow(
            code=error.code,
            cases=[docs_errors.Case(c.where, c.status, c.when.format(**known)) for c in error.cases],
            action=error.action.format(**known),
        )
        for error in docs_errors.OAUTH_ERRORS
    ]


def sample_error_body(code: str = "invalid_token") -> dict:
    """The envelope exactly as the renderer writes it (request_id as a sample value)."""
    body = error_body(None, ApiError(code))
    body["error"]["request_id"] = "req_3kTMd4J9c8pXn2Lq7vWb1Zy0"
    return body
