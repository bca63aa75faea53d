"""Which addresses a client metadata document may be fetched from (docs/spec.md 5.3): one function, one table.

Only a globally routable address is fetched. Every form that carries an IPv4
address inside an IPv6 one is refused whatever IPv4 it carries (a crafted AAAA
record must never reach an internal IPv4 through a translator or tunnel), and
so are the ranges that ``ipaddress.is_global`` lets through on Python 3.11.
"""

import pytest

from apps.oauth.client_metadata import address_allowed
from tests.support.addresses import CASES


@pytest.mark.parametrize(("address", "public"), CASES, ids=[c[0] or "empty" for c in CASES])
def test_address_policy(settings, address, public):
    settings.CIMD_TEST_ALLOWED_ADDRESSES = []
    assert address_allowed(address) is public


def test_the_test_admission_is_exact(settings):
    settings.CIMD_TEST_ALLOWED_ADDRESSES = ["127.0.0.1"]
    assert address_allowed("127.0.0.1")
    assert not address_allowed("127.0.0.2")
    assert not address_allowed("::ffff:127.0.0.1")
