"""How names and numbers are made searchable, and how a query is read (docs/decisions/contacts.md).

A name is folded (accents stripped, case folded, a few letters that Unicode does
not decompose spelled in Latin: "Łukasz" -> "lukasz") and split into words; a
query word matches the start of any word. A number is searched by its digits:
a query of digits (spaces, "+", "-", ".", "(" and ")" ignored) matches any run
of a number's digits, so the last four digits find it. Both are stored as terms
(``ContactSearchTerm``) so that one btree prefix scan answers either on
PostgreSQL: a digit run is the start of one of the number's suffixes.
"""

import re
import unicodedata
from dataclasses import dataclass

NAME = "n"
DIGITS = "d"

MAX_QUERY_LENGTH = 100
# A query's words, counted after folding ("⒜⒝" is two words, "¼" two): each word beyond the
# first is checked against every contact the first one finds, so their number bounds the
# search's cost. Names of more words are still found by any eight of them.
MAX_QUERY_WORDS = 8
MAX_TERM_LENGTH = 64
# Letters that NFKD leaves whole; folded the way a user without them types them.
_SPELLED = str.maketrans({"ł": "l", "đ": "d", "ð": "d", "ø": "o", "æ": "ae", "œ": "oe", "þ": "th", "ı": "i"})
_WORD = re.compile(r"[^\W_]+")
# Joiners inside a word: "Jean-Luc" and "O'Brien" are also found as "jeanluc" and "obrien".
_JOINED = re.compile(r"[^\W_]+(?:['’\-‐][^\W_]+)+")
_NUMBER_QUERY = re.compile(r"[\d\s+().\-]+")
_NOT_DIGIT = re.compile(r"\D")
_NOT_WORD_CHARS = re.compile(r"[\W_]+")


def fold(text: str) -> str:
    """Accents stripped and case folded: "José Álvarez" -> "jose alvarez"."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return bare.casefold().translate(_SPELLED)


def name_words(name: str) -> list[str]:
    """The words a query word may start, in order, without repeats."""
    folded = fold(name)
    words = _WORD.findall(folded)
    words += [_NOT_WORD_CHARS.sub("", joined) for joined in _JOINED.findall(folded)]
    return list(dict.fromkeys(w[:MAX_TERM_LENGTH] for w in words if w))


def sort_key(name: str) -> str:
    """The name as lists are ordered: folded words joined by one space ("alvarez" sorts with "Álvarez")."""
    return " ".join(_WORD.findall(fold(name)))[:200]


def digits_of(number: str) -> str:
    return _NOT_DIGIT.sub("", number)


def digit_terms(number: str) -> list[str]:
    """Every suffix of the number's digits: a run of digits anywhere is the start of one of them."""
    digits = digits_of(number)
    return [digits[i:] for i in range(len(digits))]


@dataclass(frozen=True)
class Query:
    kind: str  # NAME or DIGITS
    terms: tuple[str, ...]  # name: every word must start a word of the name; digits: one run


class TooManyWords(ValueError):
    def __init__(self, count: int):
        self.count = count
        super().__init__(
            f"query has {count} words once accents and special forms of letters are read; "
            f"give at most {MAX_QUERY_WORDS} words of the name."
        )


def parse_query(text: str) -> Query | None:
    """The query as terms; None when nothing in it can be searched for ("", "  ", "+", "!!").

    Raises ``TooManyWords`` past ``MAX_QUERY_WORDS`` different words after folding.
    """
    if _NUMBER_QUERY.fullmatch(text):
        digits = digits_of(text)
        return Query(DIGITS, (digits[:MAX_TERM_LENGTH],)) if digits else None
    words = tuple(dict.fromkeys(w[:MAX_TERM_LENGTH] for w in _WORD.findall(fold(text))))
    if not words:
        return None
    if len(words) > MAX_QUERY_WORDS:
        raise TooManyWords(len(words))
    return Query(NAME, words)
