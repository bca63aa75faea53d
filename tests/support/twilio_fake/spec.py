"""Twilio's published OpenAPI description of the operations the adapter uses, and a strict check of a
request against it (``openapi/``: cut from github.com/twilio/twilio-oai, the commit named in each file's
``info.x-subset-of``).

``check`` answers the problems of one request: an operation the description does not have,
path parameters off their pattern, a query or form parameter it does not define, a required
one missing, a value not of its type or enum. The fake refuses such a request as Twilio
does (400, code 20001), so a request the adapter makes that Twilio would not take fails
the test that made it.
"""

import json
import re
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).parent / "openapi"
FILES = ("twilio_api_v2010.subset.json", "twilio_intelligence_v2.subset.json")


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    pattern: re.Pattern
    spec: dict
    document: dict

    @property
    def operation_id(self) -> str:
        return self.spec.get("operationId", "")


def _load() -> list[Operation]:
    found = []
    for name in FILES:
        document = json.loads((HERE / name).read_text())
        for template, item in document["paths"].items():
            regex = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$"
            for method in ("get", "post", "delete"):
                if method in item:
                    found.append(Operation(method.upper(), template, re.compile(regex), item[method], document))
    return found


OPERATIONS = _load()


def sources() -> list[str]:
    return [json.loads((HERE / name).read_text())["info"]["x-subset-of"] for name in FILES]


def resolve(document: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def match(method: str, path: str) -> tuple[Operation, dict] | None:
    for operation in OPERATIONS:
        found = operation.pattern.match(path)
        if found and operation.method == method:
            return operation, found.groupdict()
    return None


def _value_problem(name: str, values: list[str], schema: dict, document: dict) -> str | None:
    schema = resolve(document, schema)
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items", {})
        return next((p for p in (_value_problem(name, [v], items, document) for v in values) if p), None)
    if len(values) > 1:
        return f"{name} is given {len(values)} times"
    value = values[0]
    if kind == "integer" and not re.fullmatch(r"-?\d+", value):
        return f"{name}={value!r} is not an integer"
    if kind == "integer":
        number = int(value)
        if ("minimum" in schema and number < schema["minimum"]) or ("maximum" in schema and number > schema["maximum"]):
            return f"{name}={value} is out of range"
    if kind == "boolean" and value.lower() not in ("true", "false"):
        return f"{name}={value!r} is not a boolean"
    if "enum" in schema and value not in schema["enum"]:
        return f"{name}={value!r} is not one of {schema['enum']}"
    if "pattern" in schema and not re.search(schema["pattern"], value):
        return f"{name}={value!r} does not match {schema['pattern']}"
    if schema.get("format") == "uri" and urlsplit(value).scheme not in ("http", "https"):
        return f"{name}={value!r} is not an absolute http(s) URI"
    return None


def check(method: str, path: str, query: dict[str, list[str]], form: dict[str, list[str]]) -> list[str]:
    """The problems of a request against the description; empty when Twilio would take it."""
    matched = match(method, path)
    if matched is None:
        return [f"{method} {path} is no operation the adapter may use"]
    operation, path_values = matched
    problems = []
    parameters = {p["name"]: p for p in operation.spec.get("parameters", [])}
    for name, parameter in parameters.items():
        if parameter["in"] == "path":
            problem = _value_problem(name, [path_values.get(name, "")], parameter["schema"], operation.document)
            if problem:
                problems.append(problem)
    for name, values in query.items():
        parameter = parameters.get(name)
        if parameter is None or parameter["in"] != "query":
            problems.append(f"query parameter {name} is not defined for {operation.operation_id}")
            continue
        problem = _value_problem(name, values, parameter["schema"], operation.document)
        if problem:
            problems.append(problem)
    body = operation.spec.get("requestBody")
    if body is None:
        if form:
            problems.append(f"{operation.operation_id} takes no body")
        return problems
    schema = resolve(operation.document, body["content"]["application/x-www-form-urlencoded"]["schema"])
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in form:
            problems.append(f"{name} is required by {operation.operation_id}")
    for name, values in form.items():
        if name not in properties:
            problems.append(f"form parameter {name} is not defined for {operation.operation_id}")
            continue
        problem = _value_problem(name, values, properties[name], operation.document)
        if problem:
            problems.append(problem)
    return problems


_TYPES = {"string": str, "integer": int, "boolean": bool, "object": dict, "array": list, "number": (int, float)}


def _answer_problem(name: str, value, schema: dict, document: dict) -> str | None:
    schema = resolve(document, schema)
    if value is None:
        return None if schema.get("nullable") or "type" not in schema else f"{name} may not be null"
    kind = schema.get("type")
    if kind and (not isinstance(value, _TYPES[kind]) or (kind == "integer" and isinstance(value, bool))):
        return f"{name}={value!r} is not of type {kind}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{name}={value!r} is not one of {schema['enum']}"
    if "pattern" in schema and not re.search(schema["pattern"], value):
        return f"{name}={value!r} does not match {schema['pattern']}"
    if schema.get("format") == "date-time-rfc-2822":
        try:
            parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return f"{name}={value!r} is not an RFC 2822 date"
    if schema.get("format") == "date-time":
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return f"{name}={value!r} is not an ISO 8601 date"
    return None


def shaped(document: dict, schema_name: str, values: dict) -> dict:
    """A resource as Twilio writes it: every property of its schema (null where the fake has no value),
    each value of the schema's type, enum, pattern and date format."""
    properties = document["components"]["schemas"][schema_name]["properties"]
    unknown = set(values) - set(properties)
    if unknown:
        raise AssertionError(f"{schema_name} has no properties {sorted(unknown)}")
    answer = {name: values.get(name) for name in properties}
    problems = [p for p in (_answer_problem(n, v, properties[n], document) for n, v in answer.items()) if p]
    if problems:
        raise AssertionError(f"{schema_name}: {'; '.join(problems)}")
    return answer


def document_of(file_name: str) -> dict:
    return next(
        op.document
        for op in OPERATIONS
        if op.document["info"]["x-subset-of"].endswith(file_name.replace(".subset", ""))
    )
