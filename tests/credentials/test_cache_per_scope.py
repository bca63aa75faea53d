"""A key cached with any resource app's scope costs no SQL statement, so each app's statement counts
(tests/<app>/test_queries.py) are its answers' own."""

import pytest

from tests.support.credentials import cached_key_secret
from tests.support.resources import assert_statements

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("scope", ["contacts:read", "credits:read", "numbers:read", "rates:read"])
def test_the_credential_is_cached(store, user, scope, django_assert_num_queries):
    assert_statements(django_assert_num_queries, 0, "/v1/me", cached_key_secret(user, [scope]))
