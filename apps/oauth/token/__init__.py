"""POST /oauth/token and /oauth/revoke (docs/spec.md 4.3, 3.2, 3.3, 8.3), in one place.

- ``views.py``: the endpoints; the form rules and the answer of a refusal.
- ``validator.py``: DOT's OAuth2Validator, named in settings.OAUTH2_PROVIDER: one
  locked read per exchange, reuse detection, the grant-family budget.
- ``server.py``: the oauthlib token endpoint with only our two grants.
- ``issuing.py``: the rotation's writes (one statement on PostgreSQL).
- ``lockouts.py``: failed exchanges per credential and per source, family revocation,
  the successful-refresh budgets.
- ``lifetimes.py``: code, access and refresh token lifetimes, from DOT's settings.
"""
