"""One-time codes: "the origin-bound last line (``@example.com #747723``, WICG) first, then 4 to 8
digits next to a code word (code, OTP, passcode, PIN, verification, and the same in the demo
languages); ``domain`` is null unless the message names one" (docs/design.md, Phase 3)."""

import pytest

from apps.messages.codes import OneTimeCode, detect_code


@pytest.mark.parametrize(
    ("body", "code", "domain"),
    [
        ("Your Demo code is 123456.\n\n@demo.example #123456", "123456", "demo.example"),
        ("747723 is your Example code.\n@example.com #747723", "747723", "example.com"),
        ("Sign in: 1111\n@Top.Example #AB12cd @embedded.example", "AB12cd", "top.example"),
        # The origin-bound line wins over other digits next to a code word.
        ("Your code is 999999\n@shop.example #424242", "424242", "shop.example"),
    ],
)
def test_the_origin_bound_form_comes_first(body, code, domain):
    assert detect_code(body) == OneTimeCode(code, domain)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("Your verification code is 4821", "4821"),
        ("G-482913 is your Google verification code.", "482913"),
        ("Your OTP: 12345678. Valid 5 minutes.", "12345678"),
        ("PIN 0042 for your card", "0042"),
        ("Use passcode 55123 to sign in", "55123"),
        ("Tu código de verificación es 551234", "551234"),
        ("Ihr Bestätigungscode lautet: 7788", "7788"),
        ("Votre code de vérification est 908172", "908172"),
        ("O seu código é 662211", "662211"),
    ],
)
def test_digits_next_to_a_code_word(body, code):
    assert detect_code(body) == OneTimeCode(code, None)


@pytest.mark.parametrize(
    "body",
    [
        "Your order 12345 has shipped and arrives on 2026-12-01.",
        "Meet at 1930 by the station",
        "Your order 12345 has shipped. Use code WELCOME for 10% off",
        "Call 555-1234 for your code",
        "Your code is 123",  # too short
        "Your code is 123456789",  # too long
        "Code 1234 or code 5678",  # two candidates: not guessed at
        "Balance: 1234.56 USD. PIN changes at the branch.",
        "Last line looks bound but is not: @example.com 123456",
        "",
    ],
)
def test_no_code(body):
    assert detect_code(body) is None
