"""Response examples and curl samples of the OpenAPI document, one per operation.

Each app's ``examples.py`` registers, per operation id, a function that builds the answer
the way the endpoint does: an unsaved model instance (fixed ids and times, so the
document is stable) written by the endpoint's own serializer. A field added to a
serializer therefore appears in the reference at once; tests check every example against
the operation's schema (tests/api_v1/test_openapi_examples.py). The curl sample is built
from the path, the example's id and the query or body given here, with the credential
the operation's security names.
"""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.utils.module_loading import autodiscover_modules

# The moment every example happens at: the current API version's date, mid-morning.
EXAMPLE_TIME = datetime(2026, 10, 1, 9, 30, tzinfo=UTC)


@dataclass(frozen=True)
class Example:
    build: Callable[[], dict]
    query: dict = field(default_factory=dict)
    body: dict | None = None
    # Path parameters whose value is not the answer's own id (a list under an object, an action).
    path: dict = field(default_factory=dict)


_EXAMPLES: dict[str, Example] = {}

# A fresh Idempotency-Key in a shell sample.
IDEMPOTENCY_KEY_COMMAND = "python3 -c 'import uuid; print(uuid.uuid4())'"


def response_example(
    operation_id: str, *, query: dict | None = None, body: dict | None = None, path: dict | None = None
):
    """Registers the decorated function as ``operation_id``'s response example."""

    def register(build: Callable[[], dict]) -> Callable[[], dict]:
        _EXAMPLES[operation_id] = Example(build, dict(query or {}), body, dict(path or {}))
        return build

    return register


def list_example(url: str, *items: dict) -> dict:
    """A list answer (apps.api_v1.pagination) holding ``items``."""
    return {"object": "list", "data": list(items), "has_more": False, "url": url}


def _quoted(text: str) -> str:
    """Single-quoted for a POSIX shell, always (shlex.quote leaves "to=+49..." bare, which reads less clearly)."""
    return "'" + text.replace("'", "'\\''") + "'"


def _curl(path: str, method: str, operation: dict, example: Example, answer: dict) -> str:
    # A path parameter takes the example's own id, so the sample and the answer agree; when that id is
    # not the parameter's kind (a call's transcript), the answer's field of that name (``call``).
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "path":
            name = parameter["name"]
            value = example.path.get(name) or answer.get("id", name)
            pattern = parameter.get("schema", {}).get("pattern")
            if pattern and not re.search(pattern, str(value)) and name.endswith("_id"):
                value = answer.get(name.removesuffix("_id"), value)
            path = path.replace("{" + name + "}", str(value))
    lines = [f"curl {'-G ' if method == 'get' and example.query else ''}{settings.BASE_URL}{path}"]
    if method != "get":
        lines[0] = f"curl -X {method.upper()} {settings.BASE_URL}{path}"
    schemes = {name for requirement in operation.get("security", []) for name in requirement}
    if "dashboardSession" in schemes:
        # The dashboard's own endpoints: the browser's session cookie and, for writes, its CSRF token.
        lines.append(f'-b "{settings.SESSION_COOKIE_NAME}=$SESSION"')
        if method != "get":
            lines.append('-H "X-CSRFToken: $CSRF_TOKEN"')
    elif schemes:
        lines.append('-H "Authorization: Bearer $KEY"')
    if method == "post":
        # python3 rather than uuidgen, which Debian and many containers lack.
        lines.append(f'-H "Idempotency-Key: $({IDEMPOTENCY_KEY_COMMAND})"')
    for name, value in example.query.items():
        lines.append(f"--data-urlencode {_quoted(f'{name}={value}')}")
    if example.body is not None:
        lines.append('-H "Content-Type: application/json"')
        lines.append(f"-d {_quoted(json.dumps(example.body))}")
    return " \\\n  ".join(lines)


def add_examples(result: dict) -> None:
    """Each operation's first 2xx answer gets its example, and the operation a curl sample
    (``x-codeSamples``, which Redoc shows beside the operation)."""
    autodiscover_modules("examples")
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            example = _EXAMPLES.get(operation.get("operationId")) if isinstance(operation, dict) else None
            if example is None:
                continue
            answer = example.build()
            success = next(
                response for status, response in sorted(operation["responses"].items()) if status.startswith("2")
            )
            success.setdefault("content", {}).setdefault("application/json", {})["example"] = answer
            operation["x-codeSamples"] = [
                {"lang": "Shell", "label": "curl", "source": _curl(path, method, operation, example, answer)}
            ]


def postprocess(result, generator, request, public):
    add_examples(result)
    return result
