"""Countries named by people: ISO alpha-2 codes and country names in common languages.

Names come from babel's CLDR territory names in ``LANGUAGES``; matching ignores
case, accents and punctuation ("Perú", "peru", "PERU"; "Côte d'Ivoire" and
"cote d ivoire"). The order of the tests:

1. an ISO alpha-2 code, an English name or one of ``ALIASES``, written out whole;
2. a whole name in another language ("Allemagne", "Deutschland"), unless the
   text is also the start of several English names including that country's
   ("Congo" is Spanish for Congo - Brazzaville, but in English it starts both
   Congos: ambiguous);
3. word starts: every word typed starts a word of one English name ("South Kor"),
   else of one name in another language ("Deutsch"); not for text of fewer than
   three letters ("EU" starts a word of a name of the U.S. Outlying Islands).

Each step answers one country, or several (ambiguous), or passes to the next.
"""

import bisect
import unicodedata
from dataclasses import dataclass
from functools import cache

from babel import Locale

from apps.core.phones import english_territories

# English first: it is the API's language, and step 1 and 3 prefer it.
LANGUAGES = (
    "en",
    "fr",
    "de",
    "es",
    "it",
    "pt",
    "nl",
    "sv",
    "da",
    "nb",
    "fi",
    "is",
    "pl",
    "cs",
    "sk",
    "hu",
    "ro",
    "tr",
    "el",
    "ru",
    "uk",
    "bg",
    "sr",
    "sr_Latn",
    "hr",
    "sl",
    "ca",
    "et",
    "lv",
    "lt",
    "ga",
    "cy",
    "id",
    "ms",
    "vi",
    "fil",
    "sw",
    "af",
    "zh",
    "zh_Hant",
    "ja",
    "ko",
    "ar",
    "he",
    "fa",
    "hi",
    "bn",
    "ur",
    "th",
)
# babel's alpha-2 territories that are not countries one can call.
NOT_COUNTRIES = frozenset({"EU", "EZ", "UN", "QO", "XA", "XB", "ZZ"})
# Common English names that CLDR keeps as alternates babel does not expose.
ALIASES = {
    "usa": "US",
    "america": "US",
    "united states of america": "US",
    "uk": "GB",
    "great britain": "GB",
    "britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "uae": "AE",
    "turkey": "TR",
    "czech republic": "CZ",
    "ivory coast": "CI",
    "swaziland": "SZ",
    "east timor": "TL",
    "holland": "NL",
    "vatican": "VA",
    "palestine": "PS",
    "macau": "MO",
    "falklands": "FK",
    "drc": "CD",
    "dr congo": "CD",
    "democratic republic of congo": "CD",
    "republic of congo": "CG",
}
# Dropped on both sides: "Bosnia and Herzegovina" is "Bosnia & Herzegovina" in CLDR.
NOISE_WORDS = frozenset({"and", "the", "of"})
# Fewer letters than this are matched whole only (CJK names are often two characters).
MIN_WORD_START = 3
# No name in LANGUAGES has more than ten words once normalized: more is no country, answered
# before any lookup, so the work of a lookup does not grow with what is typed.
MAX_NAME_WORDS = 12
# "Saint Lucia" and "St. Lucia" are one name.
WORD_FORMS = {"saint": "st"}


def _strips_marks(base: str) -> bool:
    # Accents are dropped from alphabets (Latin, Greek, Cyrillic: "é" is "e"); in scripts
    # such as Devanagari or Thai the marks are the vowels, and dropping them would make
    # Togo and Tonga one name.
    return base < "\u0530" or "\u1e00" <= base <= "\u1fff"


def normalize(text: str) -> str:
    """Casefolded words without accents, joined by one space: "Côte d'Ivoire" -> "cote d ivoire"."""
    kept = []
    base = " "
    for char in unicodedata.normalize("NFKD", text.casefold()):
        category = unicodedata.category(char)
        if category.startswith("M"):
            if not _strips_marks(base):
                kept.append(char)
            continue
        if category[0] in "PSZC":
            kept.append(" ")
            base = " "
            continue
        kept.append(char)
        base = char
    words = unicodedata.normalize("NFC", "".join(kept)).split()
    return " ".join(WORD_FORMS.get(word, word) for word in words if word not in NOISE_WORDS)


class Ambiguous(Exception):
    def __init__(self, codes):
        self.codes = sorted(codes)
        super().__init__(", ".join(self.codes))


@dataclass(frozen=True)
class _Names:
    """Normalized names -> codes, and each name's words sorted for prefix search."""

    exact: dict[str, frozenset]
    words: list[tuple[str, int]]  # (word, name number), sorted
    name_codes: list[str]  # name number -> code

    @classmethod
    def build(cls, pairs) -> "_Names":
        exact: dict[str, set] = {}
        words = []
        name_codes = []
        for name, code in pairs:
            exact.setdefault(name, set()).add(code)
            number = len(name_codes)
            name_codes.append(code)
            words.extend((word, number) for word in set(name.split()))
        words.sort()
        return cls({k: frozenset(v) for k, v in exact.items()}, words, name_codes)

    def word_starts(self, typed: str) -> set[str]:
        """Codes of the names of which every typed word starts a word."""
        names = None
        for word in set(typed.split()):
            start = bisect.bisect_left(self.words, (word, -1))
            found = set()
            for known, number in self.words[start:]:
                if not known.startswith(word):
                    break
                found.add(number)
            names = found if names is None else names & found
            if not names:
                return set()
        return {self.name_codes[number] for number in names or ()}


@cache
def _tables():
    english = english_territories()
    codes = sorted(c for c in english if len(c) == 2 and c.isalpha() and c not in NOT_COUNTRIES)
    english_names = [(normalize(english[c]), c) for c in codes]
    english_names += list(ALIASES.items())
    other_names = []
    for language in LANGUAGES[1:]:
        territories = Locale.parse(language).territories
        other_names += [(normalize(territories[c]), c) for c in codes if territories.get(c)]
    return frozenset(codes), _Names.build(english_names), _Names.build(other_names)


def country_codes() -> frozenset:
    return _tables()[0]


def _one(codes) -> str | None:
    if len(codes) > 1:
        raise Ambiguous(codes)
    return next(iter(codes), None)


def country_resolve(text: str) -> str | None:
    """The alpha-2 code ``text`` names, or None; raises ``Ambiguous`` when it names several."""
    codes, english, other = _tables()
    if len(text.strip()) == 2 and text.strip().upper() in codes:
        return text.strip().upper()
    typed = normalize(text)
    if not typed or typed.count(" ") >= MAX_NAME_WORDS:
        return None
    if typed in english.exact:
        return _one(english.exact[typed])
    if len(typed.replace(" ", "")) < MIN_WORD_START:
        # "eu" starts a word of some name in some language: short text is a whole name or nothing.
        return _one(other.exact.get(typed, frozenset()))
    english_starts = english.word_starts(typed)
    named = other.exact.get(typed, frozenset())
    if named and not (len(english_starts) > 1 and named & english_starts):
        return _one(named)
    return _one(english_starts) or _one(other.word_starts(typed))
