"""The compiled schema check answers exactly as jsonschema does, or leaves the instance to jsonschema."""

import math
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from apps.mcp_bridge import registry
from apps.mcp_bridge.schema_precheck import compile_precheck

TOOL_SCHEMAS = {
    f"{name} {kind}": getattr(spec, f"{kind}_schema")
    for name, spec in sorted(registry.TOOLS.items())
    for kind in ("input", "output")
}


def jsonschema_passes(schema, instance) -> bool:
    return not list(validator_for(schema)(schema).iter_errors(instance))


LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=4)
    | st.sampled_from(["inbound", "outbound", "completed", "usd", "call_", "call_ABC123", "", "+4915112345678"])
)
ANY_JSON = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


def valid(schema: dict) -> st.SearchStrategy:
    """Values that meet ``schema`` (the subset the tools use)."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    return st.one_of([VALID_OF_TYPE[name](schema) for name in types])


def valid_string(schema: dict) -> st.SearchStrategy:
    shortest, longest = schema.get("minLength", 0), schema.get("maxLength", 12)
    if "pattern" in schema:
        return st.from_regex(schema["pattern"], fullmatch=True).filter(lambda text: shortest <= len(text) <= longest)
    return st.text(min_size=shortest, max_size=min(longest, 12))


def valid_object(schema: dict) -> st.SearchStrategy:
    properties = {name: valid(sub) for name, sub in schema.get("properties", {}).items()}
    required = set(schema.get("required", []))
    return st.fixed_dictionaries(
        {name: value for name, value in properties.items() if name in required},
        optional={name: value for name, value in properties.items() if name not in required},
    )


VALID_OF_TYPE = {
    "string": valid_string,
    "integer": lambda schema: st.integers(schema.get("minimum", -1000), schema.get("maximum", 1000)),
    "number": lambda schema: st.integers(schema.get("minimum", -1000), schema.get("maximum", 1000)),
    "boolean": lambda schema: st.booleans(),
    "null": lambda schema: st.none(),
    "object": valid_object,
    "array": lambda schema: st.lists(
        valid(schema["items"]), min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 3), 3)
    ),
}


def near(data, schema: dict):
    """A valid value, or one changed at a single place: a value replaced, a key dropped or added, an item added."""
    value = data.draw(valid(schema))
    if data.draw(st.booleans()):
        return value
    holder, key = None, None
    node = value
    while isinstance(node, dict | list) and node and data.draw(st.booleans()):
        holder = node
        key = data.draw(st.sampled_from(list(node)) if isinstance(node, dict) else st.integers(0, len(node) - 1))
        node = node[key]
    change = data.draw(st.sampled_from(["replace", "drop", "add"]))
    if change == "replace" and holder is not None:
        holder[key] = data.draw(ANY_JSON)
    elif change == "drop" and isinstance(node, dict) and node:
        del node[data.draw(st.sampled_from(list(node)))]
    elif change == "add" and isinstance(node, dict):
        node[data.draw(st.sampled_from(["x", "id", "spoken"]))] = data.draw(LEAVES)
    elif change == "add" and isinstance(node, list):
        node.append(data.draw(ANY_JSON if not node else st.sampled_from(node)))
    elif holder is None:
        value = data.draw(ANY_JSON)
    return value


def test_every_tool_schema_is_within_the_compiled_subset():
    # Otherwise that tool silently pays jsonschema's full walk on every call.
    assert [name for name, schema in TOOL_SCHEMAS.items() if compile_precheck(schema) is None] == []


@pytest.mark.parametrize("name", TOOL_SCHEMAS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_tool_schemas_agree_with_jsonschema(name, data):
    schema = TOOL_SCHEMAS[name]
    instance = near(data, schema)
    assert compile_precheck(schema)(instance) is jsonschema_passes(schema, instance)


KEYWORD_SCHEMAS = [
    {"type": "integer"},
    {"type": "number"},
    {"type": ["string", "null"]},
    {"type": "boolean"},
    {"type": "array", "items": {"type": "integer"}, "maxItems": 2, "minItems": 1},
    {"items": {"type": "string"}},
    {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^a"},
    {"pattern": "b"},
    {"enum": ["a", "b"]},
    {"minimum": 0, "maximum": 1.5},
    {"type": "integer", "minimum": 1, "maximum": 10, "default": 5, "description": "d"},
    {"properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": False},
    {"required": ["a"]},
    {"additionalProperties": False},
    {"properties": {"a": {"enum": ["x"]}}},
    {},
]
EDGE_VALUES = [
    None,
    True,
    False,
    0,
    1,
    2,
    -1,
    1.0,
    1.5,
    2.5,
    math.nan,
    math.inf,
    "",
    "a",
    "ab",
    "abcd",
    "ba",
    [],
    [1],
    [1, 2, 3],
    [True],
    ["a"],
    {},
    {"a": 1},
    {"a": True},
    {"a": "x"},
    {"a": 1, "b": 2},
    {"b": 2},
    {1: 2},
]


@pytest.mark.parametrize("schema", KEYWORD_SCHEMAS, ids=str)
@pytest.mark.parametrize("value", EDGE_VALUES, ids=repr)
def test_each_keyword_agrees_with_jsonschema_on_edge_values(schema, value):
    assert compile_precheck(schema)(value) is jsonschema_passes(schema, value)


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"minimum": 0}, Decimal("-1")),
        ({"minimum": 0}, Decimal("1")),
        ({"enum": ["a"]}, 1),
        ({"type": "object", "properties": {"a": {"maximum": 1}}}, {"a": Decimal("0.5")}),
    ],
)
def test_values_it_cannot_vouch_for_are_left_to_jsonschema(schema, value):
    assert compile_precheck(schema)(value) is False


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/$defs/a", "$defs": {"a": {}}},
        {"anyOf": [{"type": "string"}]},
        {"format": "date"},
        {"additionalProperties": {"type": "string"}},
        {"additionalProperties": 0},
        {"items": [{"type": "string"}]},
        {"type": "string", "exclusiveMaximum": 3},
        {"enum": [1, "a"]},
        {"type": "whatever"},
        {"properties": {"a": True}},
        {"minimum": True},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"},
    ],
    ids=str,
)
def test_schemas_outside_the_subset_compile_to_nothing(schema):
    assert compile_precheck(schema) is None
