"""What an answer may quote of the caller's input: the one owner of the rule.

Error messages and ``spoken`` lines quote what the caller typed (``"DE" is neither a phone
number nor a country``), and assistants relay them to people. Bidirectional embeddings,
overrides and isolates (U+202A-202E, U+2066-2069) reorder the text that follows them, and
zero-width characters and marks (U+200B-200F) hide what is there: quoted back, they let a
caller make the service appear to say something it did not. They are stripped from every
quotation. Inputs keep them (a Persian name needs its zero-width non-joiner; the input guard,
apps/core/inputs.py, refuses only what cannot be stored or logged).
"""

import re

FORMATTING = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def echoed(text: str) -> str:
    """``text`` as a message may quote it: without the characters that reorder or hide text."""
    return FORMATTING.sub("", text)


def has_formatting(text: str) -> bool:
    """True when ``text`` holds one of those characters (inputs that refuse them, such as rate labels)."""
    return FORMATTING.search(text) is not None
