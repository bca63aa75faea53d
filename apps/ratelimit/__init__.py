"""Rate limiting and lockouts (docs/spec.md section 8).

Budgets: ``budgets.py`` (the one table). Arithmetic: ``gcra.py``, mirrored by
the Redis Lua script; stores behind ``stores.base.Store``. Public calls, one
store round trip each, in ``services.py``:

- ``ratelimit_class(request=, name=, principal=, user=)``: one budget class of
  ``budgets.CLASSES``. DRF views get theirs from BudgetThrottle (key management
  for /v1/api-keys, reads for a bearer GET). Bearer requests (/v1 and /mcp) get
  their class applied with the credential lookup instead
  (apps/credentials/resolvers.resolve_bearer): one round trip that finds a cached
  credential and applies its budgets (``credential_store``,
  ``ratelimit_cached_credential``, ``ratelimit_class_and_cache``).
- ``ratelimit_bearer_failure(request=, error=)``: returns the error to raise
  when a presented bearer credential fails lookup (wired in
  apps/credentials/resolvers.resolve_bearer).
- ``ratelimit_refresh_succeeded(family_id=, client_id=)``: a successful refresh,
  before its writes: its grant family (raises RateLimited past 10 a minute for
  that family) and its client's alert-only ceiling, in one round trip.
- ``ratelimit_exchange_failed(client_id=)``: a token exchange failed
  (invalid_grant); feeds the per-IP back-off; never raises.
- ``ratelimit_exchange_succeeded(client_id=)``: a code exchanged; feeds the per-client alert.
- ``ratelimit_signin_attempt(request=, account=)`` before a password is checked
  (raises RateLimited once the address or the account name is out of failures),
  ``ratelimit_signin_succeeded`` after a right one (gives the unit back), and
  ``ratelimit_password_reset(request=, account=)``: the sign-in, admin sign-in
  and password-reset forms of apps/accounts/forms.py.
- ``ratelimit_document_fetch(host=, url=)`` before a client metadata document
  is fetched (30 a minute per host; refused within a minute of the URL's last
  failure), ``ratelimit_document_fetch_failed(url=)`` after a failed one, and
  ``ratelimit_in_flight(cap=, hold_seconds=)``: a context manager holding one
  slot of a ``Concurrency`` row (fetches in flight server-wide), or False at once.

Path budgets (metadata, authorize, register, token flood guard, the
failed-exchange back-off) are applied by RateLimitMiddleware, which also
writes the docs/spec.md 8.4 headers and renders denials (envelope, or
``{"error": "temporarily_unavailable"}`` on /oauth/*, or a page on the pages).
"""
