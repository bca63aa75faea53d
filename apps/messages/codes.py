"""One-time codes in a message's body: the origin-bound form first, then a code word beside digits.

The origin-bound form is WICG's "Origin-bound one-time codes delivered via SMS": the
message's last line is ``@example.com #747723`` (optionally followed by `` @embedded.example``,
the site the code is for inside the top one). The code is bound to the top-level site the
user is on, which is the ``domain`` reported.

Otherwise a code is 4 to 8 digits standing next to a code word (within a couple of short
words: "code is 1234", "Ihr Code lautet: 123456", "482913 es tu código"), in English and the
demo languages. Digits with no code word beside them (an order number, an amount, a date)
are not a code, and a body with two different candidates is not guessed at.
"""

import re
from dataclasses import dataclass

# A host name as WICG's parser takes it: labels of letters, digits and hyphens, dot-separated.
_HOST = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+"
# A host name is at most 253 characters (RFC 1035); the pattern's labels alone do not bound it.
MAX_HOST = 253
_ORIGIN_BOUND = re.compile(rf"@(?P<domain>{_HOST}) #(?P<code>[A-Za-z0-9]{{4,16}})(?: @{_HOST})?")

# Words that name a code. English: code, OTP, passcode, PIN, verification. Spanish, German,
# French, Portuguese and Italian: the words banks and sign-in screens use.
CODE_WORDS = (
    "code",
    "codes",
    "otp",
    "passcode",
    "pin",
    "verification",
    "verify",
    "código",
    "codigo",
    "clave",
    "contraseña",
    "verificación",
    "verificacion",
    "bestätigungscode",
    "sicherheitscode",
    "verifizierungscode",
    "einmalcode",
    "tan",
    "mtan",
    "bestätigung",
    "verifizierung",
    "kennwort",
    "passwort",
    "mot de passe",
    "vérification",
    "senha",
    "verificação",
    "codice",
    "verifica",
)
_WORD = "|".join(re.escape(word) for word in sorted(CODE_WORDS, key=len, reverse=True))
# At most a few short words (or a colon, "is", "lautet", "es") between the code word and the digits.
_GAP = r"(?:[\s:=#,-]|\b\w{1,8}\b){0,8}?"
_DIGITS = r"(?<![\d.,/+])(?<!\d-)(?P<code>\d{4,8})(?![\d.,/]\d|\d)"
_WORD_THEN_DIGITS = re.compile(rf"(?<!\w)(?:{_WORD})(?!\w){_GAP}{_DIGITS}", re.IGNORECASE)
_DIGITS_THEN_WORD = re.compile(rf"{_DIGITS}{_GAP}(?<!\w)(?:{_WORD})(?!\w)", re.IGNORECASE)


@dataclass(frozen=True)
class OneTimeCode:
    code: str
    domain: str | None


def detect_code(body: str) -> OneTimeCode | None:
    """The one-time code ``body`` carries, or None."""
    lines = body.rstrip().splitlines()
    if lines:
        bound = _ORIGIN_BOUND.fullmatch(lines[-1].strip())
        # A longer "host" names no site: the line is read as text (and a stored domain holds 253).
        if bound is not None and len(bound["domain"]) <= MAX_HOST:
            return OneTimeCode(code=bound["code"], domain=bound["domain"].lower())
    found = {match["code"] for pattern in (_WORD_THEN_DIGITS, _DIGITS_THEN_WORD) for match in pattern.finditer(body)}
    if len(found) == 1:
        return OneTimeCode(code=found.pop(), domain=None)
    return None
