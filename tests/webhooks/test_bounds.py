"""Webhook endpoints and events cost what the shortest input costs: the statements' text is the same for
the smallest allowed input and the largest (docs/decisions/boundary.md, "For new endpoints"), every list
and string is bounded before any statement, and an error quotes the caller's text short and without the
characters that reorder or hide text."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.webhooks import events as types
from apps.webhooks.models import WebhookEndpoint
from tests.support.envelope import assert_error
from tests.support.sql import statement_texts
from tests.support.webhooks import key_caller

pytestmark = pytest.mark.django_db

EVERY_TYPE = list(types.SUBSCRIBABLE)
SHORT_URL = "http://127.0.0.1:9/h"
LONG_URL = SHORT_URL + "x" * (2048 - len(SHORT_URL))
HIDING = "\u202e\u200b"  # a right-to-left override and a zero-width space


@pytest.fixture
def caller(owner, store):
    """A test-mode key with every type's scope, its credential cached: requests send only their own statements."""
    _key, caller = key_caller(owner)
    for _ in range(2):
        assert caller.get("/v1/me").status_code == 200
    return caller


def create(caller, **fields):
    return caller.post("/v1/webhook_endpoints", {"url": SHORT_URL, "enabled_events": ["call.ended"], **fields})


def sent_by(request) -> tuple:
    with statement_texts() as sent:
        response = request()
    return response, sent


def assert_quoted_short(message: str, text: str):
    assert len(message) < 300
    assert not any(c in message for c in HIDING)
    assert "\\u" not in message  # stripped, not escaped
    assert text not in message


class TestEndpointWrites:
    def test_creating_with_the_most_types_and_longest_strings_sends_the_statements_of_the_least(self, caller):
        create(caller)
        smallest, sent_small = sent_by(lambda: create(caller))
        largest, sent_large = sent_by(
            lambda: create(caller, url=LONG_URL, enabled_events=EVERY_TYPE, description="d" * 500)
        )
        assert smallest.status_code == largest.status_code == 201, largest.content
        assert largest.json()["enabled_events"] == EVERY_TYPE
        assert sent_small == sent_large

    def test_changing_to_the_most_types_sends_the_statements_of_one(self, caller):
        path = f"/v1/webhook_endpoints/{create(caller).json()['id']}"
        caller.post(path, {"enabled_events": ["balance.low"], "description": "a"})
        one, sent_one = sent_by(lambda: caller.post(path, {"enabled_events": ["call.ended"], "description": "b"}))
        every, sent_every = sent_by(lambda: caller.post(path, {"enabled_events": EVERY_TYPE, "description": "c" * 500}))
        assert one.status_code == every.status_code == 200
        assert sent_one == sent_every

    @pytest.mark.parametrize(
        ("events", "said"),
        [
            (["call.ended", "call.ended"], "more than once"),
            (["*", "*"], "more than once"),
            ([*EVERY_TYPE, "call.ended"], f"at most {len(EVERY_TYPE)}"),
            (["call.ended"] * 20_000, f"at most {len(EVERY_TYPE)}"),
        ],
    )
    def test_a_type_twice_or_more_types_than_there_are_is_refused_before_any_statement(self, caller, events, said):
        endpoint_id = create(caller).json()["id"]
        with CaptureQueriesContext(connection) as captured:
            response = create(caller, enabled_events=events)
        assert said in assert_error(response, 400, "invalid_request", param="enabled_events")["message"]
        assert captured.captured_queries == []
        # A change reads its endpoint first (a missing one is 404), then refuses the list before any write.
        response = caller.post(f"/v1/webhook_endpoints/{endpoint_id}", {"enabled_events": events})
        assert said in assert_error(response, 400, "invalid_request", param="enabled_events")["message"]
        assert WebhookEndpoint.objects.get().enabled_events == ["call.ended"]

    def test_an_unknown_type_is_quoted_short_and_without_hiding_characters(self, caller):
        sent = HIDING + "call.x" + "y" * 5000
        error = assert_error(create(caller, enabled_events=[sent]), 400, "invalid_request", param="enabled_events")
        assert "'call.x" in error["message"]
        assert_quoted_short(error["message"], sent)
        assert WebhookEndpoint.objects.count() == 0

    def test_an_unknown_field_is_quoted_short_and_without_hiding_characters(self, caller):
        name = HIDING + "metadata" + "m" * 5000
        error = assert_error(create(caller, **{name: {}}), 400, "invalid_request", param=name[:100])
        assert "'metadata" in error["message"]
        assert_quoted_short(error["message"], name)
        assert WebhookEndpoint.objects.count() == 0

    def test_rotating_with_the_longest_overlap_sends_the_statements_of_none(self, caller):
        path = f"/v1/webhook_endpoints/{create(caller).json()['id']}/rotate_secret"
        caller.post(path, {"expires_in": 1})
        _, none = sent_by(lambda: caller.post(path, {"expires_in": 1}))
        _, longest = sent_by(lambda: caller.post(path, {"expires_in": 604800}))
        assert none == longest
        with CaptureQueriesContext(connection) as captured:
            response = caller.post(path, {"expires_in": 604801})
        assert_error(response, 400, "invalid_request", param="expires_in")
        assert not [q for q in captured.captured_queries if q["sql"].startswith("UPDATE")]

    def test_an_endpoint_id_of_any_allowed_length_sends_the_same_statements(self, caller):
        def deleted(endpoint_id):
            response, sent = sent_by(lambda: caller.delete(f"/v1/webhook_endpoints/{endpoint_id}"))
            assert_error(response, 404, "not_found", param="endpoint_id")
            return sent

        deleted("we_A")
        assert deleted("we_A") == deleted("we_" + "A" * 64)
        with CaptureQueriesContext(connection) as captured:
            deleted("we_" + "A" * 65)
        assert not [q for q in captured.captured_queries if "webhooks_" in q["sql"]]


@pytest.fixture
def ping(caller):
    """A ping event of an endpoint, and that endpoint's id."""
    endpoint_id = create(caller, enabled_events=["*"]).json()["id"]
    response = caller.post(f"/v1/webhook_endpoints/{endpoint_id}/test")
    assert response.status_code == 202
    return response.json()["id"], endpoint_id


class TestEvents:
    def test_a_filter_given_in_its_longest_form_sends_the_statements_of_its_shortest(self, caller, ping):
        caller.get("/v1/events", {"type": "ping", "created[gte]": "1"})
        _, shortest = sent_by(lambda: caller.get("/v1/events", {"type": "ping", "created[gte]": "1"}))
        longest_type = max(types.EVENT_TYPES, key=len)
        response, longest = sent_by(lambda: caller.get("/v1/events", {"type": longest_type, "created[gte]": "9" * 11}))
        assert response.status_code == 200 and response.json()["data"] == []
        assert shortest == longest

    @pytest.mark.parametrize("value", ["9" * 12, "\u00b2", "\u0661\u0662", "-1", "1.5", ""])
    def test_a_time_past_its_bound_or_not_in_ascii_digits_is_refused_before_any_statement(self, caller, value):
        with CaptureQueriesContext(connection) as captured:
            response = caller.get("/v1/events", {"created[gte]": value})
        assert_error(response, 400, "invalid_request", param="created[gte]")
        assert captured.captured_queries == []

    def test_a_type_not_in_the_table_is_refused_before_any_statement(self, caller):
        with CaptureQueriesContext(connection) as captured:
            response = caller.get("/v1/events", {"type": HIDING + "ping" * 1000})
        error = assert_error(response, 400, "invalid_request", param="type")
        assert_quoted_short(error["message"], "pingping")
        assert captured.captured_queries == []

    def test_redelivering_to_an_endpoint_id_of_any_allowed_length_sends_the_same_statements(self, caller, ping):
        path = f"/v1/events/{ping[0]}/redeliver"

        def redelivered(endpoint_id):
            response, sent = sent_by(lambda: caller.post(path, {"endpoint": endpoint_id}))
            assert_error(response, 404, "not_found", param="endpoint")
            return sent

        redelivered("we_A")
        assert redelivered("we_A") == redelivered("we_" + "A" * 64)

    def test_redelivering_with_an_unknown_field_quotes_it_short_and_without_hiding_characters(self, caller, ping):
        name = HIDING + "endpoints" + "s" * 5000
        response = caller.post(f"/v1/events/{ping[0]}/redeliver", {name: ping[1]})
        error = assert_error(response, 400, "invalid_request", param=name[:100])
        assert "'endpoints" in error["message"]
        assert_quoted_short(error["message"], name)
