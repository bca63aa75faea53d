"""A compiled yes/no check for the part of JSON Schema the tools' schemas use.

jsonschema walks a schema generically, building a child validator for every
property of every item; for a page of svc_list_calls that is about 300 us of
worker CPU, more than the rest of the protocol layer. A tool's schema is a
constant, so it is compiled here once into plain closures that apply each
keyword exactly as jsonschema's Draft 2020-12 keywords do.

True means jsonschema would find no error, and is then taken as its answer.
False only means the check does not vouch for the instance: that instance, and
every instance of a schema with a keyword outside this subset
(``compile_precheck`` returns None), goes to jsonschema, whose errors are what
callers see. The instance is never changed.
"""

import numbers
import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

# Keywords that never fail an instance (annotations): jsonschema ignores them when validating.
ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment", "deprecated"})


class UnsupportedSchema(Exception):
    """A keyword or form this check does not apply; the whole schema goes to jsonschema."""


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_integer(value) -> bool:
    # Draft 6 and later count 1.0 as an integer.
    return type(value) is int or _is_int(value) or (isinstance(value, float) and value.is_integer())


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


# jsonschema's own type checker (jsonschema/_types.py): these types by isinstance alone,
# integer and number by their predicates (a bool is neither).
TYPE_CLASSES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
TYPE_PREDICATES: dict[str, Check] = {"integer": _is_integer, "number": _is_number}


def compile_precheck(schema: Any) -> Check | None:
    """``check(instance)`` is True only when jsonschema would find no error; None if the schema is out of reach."""
    try:
        return _node(schema)
    except UnsupportedSchema:
        return None


def _node(schema: Any) -> Check:
    if not isinstance(schema, dict):
        raise UnsupportedSchema(repr(schema))
    checks = []
    handled = set(ANNOTATIONS)
    for build, keywords in BUILDERS:
        if any(keyword in schema for keyword in keywords):
            checks.append(build(schema))
        handled.update(keywords)
    if not schema.keys() <= handled:
        raise UnsupportedSchema(", ".join(sorted(schema.keys() - handled)))
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]

    def every(value) -> bool:
        # Loops, not all() over a generator: this runs for every node of every result.
        for check in checks:  # noqa: SIM110
            if not check(value):
                return False
        return True

    return every


def _type(schema: dict) -> Check:
    names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    if not all(isinstance(name, str) and name in TYPE_CLASSES.keys() | TYPE_PREDICATES.keys() for name in names):
        raise UnsupportedSchema(f"type {schema['type']!r}")
    classes = tuple(TYPE_CLASSES[name] for name in names if name in TYPE_CLASSES)
    predicates = tuple(TYPE_PREDICATES[name] for name in names if name in TYPE_PREDICATES)
    if not predicates:
        return lambda value: isinstance(value, classes)
    if not classes and len(predicates) == 1:
        return predicates[0]
    return lambda value: isinstance(value, classes) or any(test(value) for test in predicates)


def _enum(schema: dict) -> Check:
    allowed = schema["enum"]
    if not isinstance(allowed, list) or not all(type(each) is str for each in allowed):
        raise UnsupportedSchema("enum of anything but strings")
    allowed = tuple(allowed)
    # A string equals one of them or fails, as in jsonschema's enum; anything else is left to jsonschema.
    return lambda value: isinstance(value, str) and value in allowed


def _object(schema: dict) -> Check:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    additional = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list) or type(additional) is not bool:
        raise UnsupportedSchema("object keywords")
    checks = tuple((name, _node(subschema)) for name, subschema in properties.items())
    required = tuple(required)
    closed = additional is False

    def check(value) -> bool:
        if not isinstance(value, dict):
            return True
        for name in required:
            if name not in value:
                return False
        if closed:
            for key in value:
                if key not in properties:
                    return False
        for name, subcheck in checks:  # noqa: SIM110
            if name in value and not subcheck(value[name]):
                return False
        return True

    return check


def _array(schema: dict) -> Check:
    items = schema.get("items", True)
    most, least = schema.get("maxItems"), schema.get("minItems")
    if items is not True and not isinstance(items, dict):
        raise UnsupportedSchema("items")
    if not all(bound is None or _is_int(bound) for bound in (most, least)):
        raise UnsupportedSchema("array bounds")
    item_check = None if items is True else _node(items)

    def check(value) -> bool:
        if not isinstance(value, list):
            return True
        if (most is not None and len(value) > most) or (least is not None and len(value) < least):
            return False
        if item_check is not None:
            for item in value:
                if not item_check(item):
                    return False
        return True

    return check


def _string(schema: dict) -> Check:
    longest, shortest = schema.get("maxLength"), schema.get("minLength")
    if not all(bound is None or _is_int(bound) for bound in (longest, shortest)):
        raise UnsupportedSchema("string bounds")
    search = re.compile(schema["pattern"]).search if "pattern" in schema else None

    def check(value) -> bool:
        if not isinstance(value, str):
            return True
        if (longest is not None and len(value) > longest) or (shortest is not None and len(value) < shortest):
            return False
        return search is None or search(value) is not None

    return check


def _bounds(schema: dict) -> Check:
    highest, lowest = schema.get("maximum"), schema.get("minimum")
    if not all(bound is None or type(bound) in (int, float) for bound in (highest, lowest)):
        raise UnsupportedSchema("numeric bounds")

    def check(value) -> bool:
        if type(value) not in (int, float):
            # Other numbers (Decimal, Fraction...) are compared by jsonschema itself.
            return not _is_number(value)
        return not ((highest is not None and value > highest) or (lowest is not None and value < lowest))

    return check


BUILDERS: tuple[tuple[Callable[[dict], Check], tuple[str, ...]], ...] = (
    (_type, ("type",)),
    (_enum, ("enum",)),
    (_object, ("properties", "required", "additionalProperties")),
    (_array, ("items", "maxItems", "minItems")),
    (_string, ("maxLength", "minLength", "pattern")),
    (_bounds, ("maximum", "minimum")),
)
