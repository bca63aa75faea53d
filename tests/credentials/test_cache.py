"""The credential cache: one store round trip per bearer request, and revocation stays immediate.

"Revocation stays immediate: a revoked token or key is refused by every worker
on its next request, whatever is cached." Every test here first makes the
credential cached (a request that hits the cache costs no SQL), then revokes it
the way a user, an admin or the service would, then presents it again.
"""

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from apps.accounts.security import user_credentials_revoke_all
from apps.apikeys.models import ApiKey
from apps.apikeys.services import apikey_revoke
from apps.audit.models import EventType
from apps.credentials import cache as credential_cache
from apps.ratelimit import conf
from apps.ratelimit.stores.base import CredentialMiss
from tests.ratelimit.redis_server import cluster_wanted, sent_commands
from tests.support.factories import UserFactory, make_api_key
from tests.support.oauth import MCP, disconnect, issue, make_client, signed_in

pytestmark = pytest.mark.django_db

WHOAMI = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "svc_whoami", "arguments": {}}}
MCP_HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream", "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25"}


@pytest.fixture
def key(user):
    return make_api_key(user)


@pytest.fixture
def app():
    return make_client(name="Pocket Assistant")


def me(secret, client=None):
    return (client or Client()).get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}")


def whoami(secret):
    return Client().post(
        "/mcp", WHOAMI, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {secret}", **MCP_HEADERS
    )


def warm(secret, call=me):
    """Present ``secret`` until cached: a user's first fill only creates the user's epoch."""
    for _ in range(2):
        response = call(secret)
        assert response.status_code == 200, response.content
    return response


def cached(secret, django_assert_num_queries, call=me):
    """Make ``secret`` cached, then show a request served with no SQL at all."""
    first = warm(secret, call)
    with django_assert_num_queries(0):
        second = call(secret)
    assert second.status_code == 200, second.content
    assert second.json() == first.json()
    return second


def refused(response, message=None):
    assert response.status_code == 401, response.content
    assert response.json()["error"]["code"] == "invalid_token"
    if message:
        assert message in response.json()["error"]["message"]


# --- The hot path --------------------------------------------------------------------------


def test_a_cached_api_key_costs_one_store_round_trip_and_no_sql(store, key, django_assert_num_queries, monkeypatch):
    _key, secret = key
    warm(secret)
    sent = sent_commands(monkeypatch)
    with django_assert_num_queries(0):
        response = me(secret)
    assert response.status_code == 200
    # Lookup and budgets in one EVALSHA; on a cluster the user's slot is a second (redis_cluster.py).
    assert len(sent) == (2 if cluster_wanted() else 1)
    assert response["RateLimit-Policy"] == "60;w=60"
    assert response["X-RateLimit-Remaining"] in {"57", "56"}  # the budget is spent on a hit as on a miss


def test_the_cached_answer_is_the_database_answer(store, user, key, app, django_assert_num_queries):
    _key, secret = key
    body = cached(secret, django_assert_num_queries).json()
    assert body == {
        "object": "user",
        "id": user.id,
        "email": user.email,
        "display_name": user.display_name,
        "country_code": None,
        "time_zone": None,
        "livemode": True,
    }
    token = issue(user, app)["access_token"]
    assert cached(token, django_assert_num_queries).json() == body


def test_a_cached_mcp_token_costs_no_sql(store, user, app, django_assert_num_queries):
    token = issue(user, app, resource=MCP)["access_token"]
    response = cached(token, django_assert_num_queries, call=whoami)
    assert response.json()["result"]["structuredContent"]["email"] == user.email


def test_budgets_still_deny_on_the_cached_path(store, key):
    _key, secret = key
    statuses = [me(secret).status_code for _ in range(62)]
    assert statuses[:60] == [200] * 60
    assert statuses[-1] == 429


def test_a_cached_v1_token_is_not_served_at_mcp(store, user, app, django_assert_num_queries):
    token = issue(user, app)["access_token"]
    cached(token, django_assert_num_queries)
    refused(whoami(token))  # bound to /v1: the database answers, as without a cache


def test_a_key_with_an_ip_allowlist_is_checked_on_every_request(store, user, django_assert_num_queries):
    _key, secret = make_api_key(user, ip_allowlist=["203.0.113.0/24"])
    response = Client(REMOTE_ADDR="203.0.113.9").get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200
    response = Client(REMOTE_ADDR="198.51.100.1").get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "ip_not_allowed"


def test_a_cached_key_still_stamps_last_use_once_a_minute(store, key, django_assert_num_queries):
    api_key, secret = key
    cached(secret, django_assert_num_queries)
    stamped = ApiKey.objects.get(pk=api_key.pk).last_used_at
    assert stamped is not None
    # A minute later the marker is gone: the next request stamps again, with one UPDATE.
    store.client.delete(store.credential_used_key(api_key.pk, str(api_key.user_id)))
    with django_assert_num_queries(1):
        assert me(secret).status_code == 200
    assert ApiKey.objects.get(pk=api_key.pk).last_used_at > stamped


def test_an_entry_does_not_outlive_its_token(store, user, app, django_assert_num_queries):
    token = issue(user, app)["access_token"]
    from apps.core.ids import digest
    from apps.oauth.models import AccessToken

    # Expiry is data, not a revocation: no signal moves an epoch when it passes.
    AccessToken.objects.filter(token_checksum=digest(token)).update(expires=timezone.now() + timedelta(seconds=1.5))
    cached(token, django_assert_num_queries)
    time.sleep(1.6)
    refused(me(token))


# --- Revocation stays immediate -----------------------------------------------------------------


def test_revoking_a_key_in_the_dashboard(store, user, key, django_assert_num_queries):
    api_key, secret = key
    cached(secret, django_assert_num_queries)
    response = signed_in(user).delete(f"/v1/api-keys/{api_key.pk}")
    assert response.status_code == 200, response.content
    refused(me(secret))


def test_revoking_a_key_through_the_service(store, key, django_assert_num_queries):
    api_key, secret = key
    cached(secret, django_assert_num_queries)
    apikey_revoke(key=api_key)
    refused(me(secret))


def test_a_key_deleted_in_the_admin(store, key, django_assert_num_queries):
    api_key, secret = key
    cached(secret, django_assert_num_queries)
    ApiKey.objects.filter(pk=api_key.pk).delete()
    refused(me(secret))


def test_a_password_change_revokes_cached_keys_and_tokens(store, user, key, app, django_assert_num_queries):
    _key, secret = key
    token = issue(user, app)["access_token"]
    mcp_token = issue(user, app, resource=MCP)["access_token"]
    cached(secret, django_assert_num_queries)
    cached(token, django_assert_num_queries)
    cached(mcp_token, django_assert_num_queries, call=whoami)
    user.set_password("a-new-password-123")
    user.save()
    user_credentials_revoke_all(user=user, event_type=EventType.PASSWORD_CHANGED)
    refused(me(secret))
    refused(me(token))
    assert whoami(mcp_token).status_code == 401


def test_a_deactivated_user(store, user, key, django_assert_num_queries):
    _key, secret = key
    cached(secret, django_assert_num_queries)
    user.is_active = False
    user.save()
    refused(me(secret))


def test_a_renamed_user_is_shown_renamed(store, user, key, django_assert_num_queries):
    _key, secret = key
    cached(secret, django_assert_num_queries)
    user.display_name = "Ada King"
    user.save()
    assert me(secret).json()["display_name"] == "Ada King"


def test_disconnecting_an_app(store, user, app, django_assert_num_queries):
    token = issue(user, app)["access_token"]
    cached(token, django_assert_num_queries)
    response = disconnect(signed_in(user), app.client_id)
    assert response.status_code in {200, 204}, response.content
    refused(me(token), "Reconnect the app")


def test_revoking_the_token_at_the_revocation_endpoint(store, user, app, django_assert_num_queries):
    token = issue(user, app)["access_token"]
    cached(token, django_assert_num_queries)
    response = Client().post(
        "/oauth/revoke",
        f"token={token}&client_id={app.client_id}",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    refused(me(token))


def test_disabling_the_client_in_the_admin(store, user, app, django_assert_num_queries):
    from apps.oauth.registration.services import client_disable

    token = issue(user, app)["access_token"]
    other = issue(UserFactory(), app)["access_token"]
    cached(token, django_assert_num_queries)
    cached(other, django_assert_num_queries)
    client_disable(client=app, now=timezone.now())
    refused(me(token))
    refused(me(other))


def test_one_users_revocation_leaves_other_users_cached(store, user, key, django_assert_num_queries):
    _key, secret = key
    _other_key, other_secret = make_api_key(UserFactory())
    cached(secret, django_assert_num_queries)
    cached(other_secret, django_assert_num_queries)
    user_credentials_revoke_all(user=user, event_type=EventType.PASSWORD_CHANGED)
    refused(me(secret))
    with django_assert_num_queries(0):
        assert me(other_secret).status_code == 200


# --- The store's rules, every worker at once --------------------------------------------------


def test_a_revocation_in_one_worker_is_seen_by_another(store, request, key, django_assert_num_queries):
    """Two stores are two workers' connection pools to the same Redis."""
    api_key, secret = key
    cached(secret, django_assert_num_queries)
    other_worker = type(store)(url=store.url, key_prefix=store.key_prefix, clock_skew_ms=0)
    other_worker.credential_revoke(user_id=api_key.user_id)
    # The revocation's rows are not even changed: the epoch alone ends the entry.
    with django_assert_num_queries(1):  # read from the database again
        assert me(secret).status_code == 200


def test_a_fill_read_before_a_revocation_is_never_cached(store, user, key):
    """The race: a miss reads the database, a revocation commits and moves the epoch, then the fill arrives."""
    _key, secret = key
    request = Client().get("/").wsgi_request
    _, miss = credential_cache.lookup(request, secret, resource_path="v1", budget_class="reads")
    assert isinstance(miss, CredentialMiss)
    from apps.apikeys.bearer import resolve as resolve_api_key

    principal = resolve_api_key(request, secret, resource_path="v1")  # the database read, still live
    store.credential_revoke(user_id=user.pk)  # the revocation commits after it
    credential_cache.charge_and_fill(
        request, secret, store=store, miss=miss, principal=principal, resource_path="v1", name="reads"
    )
    _, again = credential_cache.lookup(request, secret, resource_path="v1", budget_class="reads")
    assert isinstance(again, CredentialMiss)


def test_a_lost_epoch_only_ever_causes_a_miss(store, user, key, django_assert_num_queries):
    """If Redis evicts a user's epoch, entries naming it are not trusted."""
    _key, secret = key
    cached(secret, django_assert_num_queries)
    store.client.delete(store._user_epoch_key(user.pk))
    with django_assert_num_queries(1):
        assert me(secret).status_code == 200


def test_the_in_process_store_caches_nothing(user, key, settings, django_assert_num_queries):
    """The quick start's store is per process: a revocation could not reach other processes."""
    settings.RATELIMIT = {"STORE": conf.MEMORY_STORE}
    _key, secret = key
    me(secret)
    with django_assert_num_queries(1):
        assert me(secret).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_credential_in_use_keeps_working_while_the_database_is_down(store, key, monkeypatch):
    """Nothing can be revoked while the database is down, so serving a cached credential is safe."""
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.utils import OperationalError

    api_key, secret = key
    warm(secret)

    def refuse(self):
        raise OperationalError("connection refused")

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", refuse)
    store.client.delete(
        store.credential_used_key(api_key.pk, str(api_key.user_id))
    )  # its last-use stamp is due, and cannot be written
    assert me(secret).status_code == 200
    fresh = "sk_live_" + "A" * 43
    response = me(fresh)  # not cached: the database must answer, and cannot
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "service_unavailable"


def test_reusing_a_rotated_refresh_token_kills_the_cached_access_token(store, user, app, django_assert_num_queries):
    from tests.support.oauth import refresh

    tokens = issue(user, app)
    rotated = refresh(Client(), app, tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.content
    access = rotated.json()["access_token"]
    cached(access, django_assert_num_queries)
    replay = refresh(Client(), app, tokens["refresh_token"])  # reuse: the whole family is revoked (docs/spec.md 3.3)
    assert replay.status_code == 400
    refused(me(access))


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: SQLite locks the database for the open write, so the other worker cannot read",
)
def test_a_request_served_while_the_revocation_is_uncommitted_is_not_cached_past_the_commit(store, user, key):
    """Another worker reads the key while the revoking transaction is open (still live to it) and caches
    it; the commit moves the epoch again, so the next request is refused."""
    import threading

    from django.db import transaction

    api_key, secret = key
    assert me(secret).status_code == 200
    seen = []

    def other_worker():
        seen.append(me(secret).status_code)
        connection.close()

    with transaction.atomic():
        apikey_revoke(key=api_key)
        worker = threading.Thread(target=other_worker)
        worker.start()
        worker.join()
    assert seen == [200]  # the revocation was not committed yet: the key was live to that worker
    refused(me(secret))


# --- Found by review ------------------------------------------------------------------------


def test_an_epoch_lost_between_the_read_and_the_fill_is_not_a_licence_to_cache(store, user, key):
    api_key, secret = key
    warm(secret)  # the user's epoch exists
    request = Client().get("/").wsgi_request
    store.credential_revoke(user_id=user.pk)  # the entry is dead: the next lookup misses
    _, miss = credential_cache.lookup(request, secret, resource_path="v1", budget_class="reads")
    assert isinstance(miss, CredentialMiss)
    from apps.apikeys.bearer import resolve as resolve_api_key

    principal = resolve_api_key(request, secret, resource_path="v1")  # the read: still live
    ApiKey.objects.filter(pk=api_key.pk).update(revoked_at=timezone.now())  # the revocation commits...
    store.credential_revoke(user_id=user.pk)  # ...and moves the epoch...
    store.client.delete(store._user_epoch_key(user.pk))  # ...which Redis then loses
    credential_cache.charge_and_fill(
        request, secret, store=store, miss=miss, principal=principal, resource_path="v1", name="reads"
    )
    refused(me(secret))


def test_a_revocation_the_cache_cannot_see_is_not_committed(store, user, key, monkeypatch):
    """Fail closed: with the store unreachable for the revoking process, the revocation rolls back (503)."""
    from apps.ratelimit.stores.base import StoreUnavailable

    api_key, secret = key
    warm(secret)

    def unreachable(**kwargs):
        raise StoreUnavailable("connection refused")

    monkeypatch.setattr(store, "credential_revoke", unreachable)
    response = signed_in(user).delete(f"/v1/api-keys/{api_key.pk}")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "rate_limiter_unavailable"
    assert ApiKey.objects.get(pk=api_key.pk).revoked_at is None  # nothing half-done


def test_a_refused_cached_request_still_stamps_last_use(store, key, django_assert_num_queries):
    api_key, secret = key
    cached(secret, django_assert_num_queries)
    while me(secret).status_code != 429:
        pass
    ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=None)
    store.client.delete(store.credential_used_key(api_key.pk, str(api_key.user_id)))  # a minute later: a stamp is due
    assert me(secret).status_code == 429
    assert ApiKey.objects.get(pk=api_key.pk).last_used_at is not None  # as the database path does


def test_an_entry_is_dead_by_the_workers_clock_too(store, user, app, django_assert_num_queries, monkeypatch):
    """A Redis clock running late does not stretch a credential's life."""
    from apps.ratelimit.stores import redis as redis_store

    token = issue(user, app)["access_token"]
    cached(token, django_assert_num_queries)
    ahead = time.time() + 2 * 3600  # past the access token's expiry
    monkeypatch.setattr(redis_store.time, "time", lambda: ahead)
    request = Client().get("/").wsgi_request
    _, answer = credential_cache.lookup(request, token, resource_path="v1", budget_class="reads")
    assert isinstance(answer, CredentialMiss)


def test_a_sign_in_does_not_empty_the_users_cache(store, user, key, django_assert_num_queries):
    from django.contrib.auth.models import update_last_login

    _key, secret = key
    cached(secret, django_assert_num_queries)
    update_last_login(None, user)
    with django_assert_num_queries(0):
        assert me(secret).status_code == 200


def test_deleting_an_unused_client_leaves_every_cache_in_place(store, key, django_assert_num_queries):
    _key, secret = key
    cached(secret, django_assert_num_queries)
    make_client().delete()
    with django_assert_num_queries(0):
        assert me(secret).status_code == 200


def test_deleting_a_client_kills_its_cached_tokens(store, user, app, django_assert_num_queries):
    token = issue(user, app)["access_token"]
    cached(token, django_assert_num_queries)
    app.delete()
    refused(me(token))


def test_an_entry_always_names_its_keys_last_use_marker(store, key):
    """Even when the fill sets no marker (the minute since the last stamp is over), hits still stamp."""
    import json

    from apps.apikeys.bearer import resolve as resolve_api_key

    api_key, secret = key
    principal = resolve_api_key(Client().get("/").wsgi_request, secret, resource_path="v1")
    principal.credential.last_used_at = timezone.now() - timedelta(minutes=2)
    entry = credential_cache.entry_for(principal, secret=secret, resource_path="v1", store=store)
    assert json.loads(entry["control"])["used"] == store.credential_used_key(api_key.pk, str(api_key.user_id))
    assert entry["used_key"] == ""  # nothing to hold back: the next hit stamps
