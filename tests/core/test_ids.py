"""Ids and secrets: prefix plus uniform base62 from the OS's CSPRNG."""

import re
from collections import Counter

import pytest

from apps.core.ids import BASE62, SECRET_LENGTH, id_pattern, is_id, looks_like, new_id, new_secret, random_base62


def test_lengths_and_alphabet():
    for length in (1, 24, 43, 200):
        value = random_base62(length)
        assert len(value) == length
        assert set(value) <= set(BASE62)
    assert new_id("req_").startswith("req_") and len(new_id("req_")) == 4 + 24
    secret = new_secret("sat_")
    assert looks_like(secret, "sat_") and len(secret) == 4 + SECRET_LENGTH


def test_every_character_is_about_equally_likely():
    # 62 symbols over 124,000 draws: 2,000 expected each; a byte taken mod 62 without
    # rejecting 248..255 would give the first eight symbols about 2,420 and the rest 1,940.
    counts = Counter("".join(random_base62(1000) for _ in range(124)))
    assert set(counts) == set(BASE62)
    assert all(1800 < n < 2200 for n in counts.values()), counts.most_common(3)


def test_values_do_not_repeat():
    assert len({random_base62(24) for _ in range(10000)}) == 10000


def test_the_format_check_takes_only_ascii_base62_of_the_right_length():
    good = new_secret("sat_")
    assert looks_like(good, "sat_")
    assert not looks_like(good, "srt_")
    assert not looks_like(good[:-1], "sat_")
    assert not looks_like(good + "A", "sat_")
    assert not looks_like(good[:-1] + "\u0663", "sat_")  # an Arabic-Indic digit is not base62
    assert not looks_like(good[:-1] + "-", "sat_")
    assert not looks_like(good[:-1] + "\n", "sat_")


@pytest.mark.parametrize(
    ("value", "well_formed"),
    [
        ("num_" + "a" * 24, True),
        ("num_" + "a" * 64, True),
        ("num_" + "a" * 65, False),
        ("num_", False),
        ("num_abc_def", False),
        ("num_abc\x00", False),
        ("cid_" + "a" * 24, False),
        (None, False),
        (123, False),
    ],
)
def test_is_id_and_id_pattern_say_the_same(value, well_formed):
    assert is_id(value, "num_") is well_formed
    if isinstance(value, str):
        assert (re.fullmatch(id_pattern("num_"), value) is not None) is well_formed
