"""The shapes tools' schemas share."""


def list_of(properties: dict, *, most: int) -> dict:
    """A list in a tool's output: at most ``most`` items, each an object with exactly ``properties``,
    every one of them present (a null says a value is missing, never a left-out key)."""
    return {
        "type": "array",
        "maxItems": most,
        "items": {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        },
    }
