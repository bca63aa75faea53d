"""Sent by the issuers when credentials end by a user's act, in the transaction that ends them.

``credential_ended`` carries ``user_id``, ``kind`` (``"api_key"`` or
``"oauth"``) and ``credential_id`` (a key id, or an OAuth client id for the
user's connection to that app; None: every credential of that kind of the
user, as a password reset ends them). Receivers act in the same transaction,
so what depends on the credential ends with it or not at all.
"""

from django.dispatch import Signal

credential_ended = Signal()
