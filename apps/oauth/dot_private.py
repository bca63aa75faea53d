"""The private names of django-oauth-toolkit this project relies on, in one place.

DOT 3.4 keeps the client metadata document's URL rules and its registration
permission check in underscore functions of ``oauth2_provider.cimd``. We use
them rather than copy them, so that DOT's fixes reach us; since a private name
may change in any release, they are imported here only, and
``tests/oauth/test_dot_private.py`` pins the behaviour we rely on, so an
upgrade that changes it fails there first.
"""

from oauth2_provider.cimd import _registration_permitted as registration_permitted
from oauth2_provider.cimd import _validate_client_id_url as validate_client_id_url

__all__ = ["registration_permitted", "validate_client_id_url"]
