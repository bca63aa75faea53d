"""User-typed text in sentences the service writes."""


def one_line(text: str) -> str:
    """``text`` with every run of whitespace, line breaks included, as one space: a name or a query
    the user typed must not break the line a sentence is read out on."""
    return " ".join(text.split())
