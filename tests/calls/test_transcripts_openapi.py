"""POST /v1/calls/{id}/transcript in /v1/openapi.json: the operation, its scope, parameters and every
answer it gives (docs/design.md, "Transcript requests"), and real answers match the document."""

import jsonschema
import pytest

from apps.accounts.security import sharing_update
from apps.jobs.public import run_due
from apps.telephony.simulator import TRANSCRIPTION_FAILS_TO
from tests.calls.callbacks import STAYS, Placer, frozen_clock, ready
from tests.support.factories import UserFactory

PATH = "/v1/calls/{call_id}/transcript"
SCOPES = ("calls:place", "calls:read", "credits:read", "transcripts:read")


@pytest.fixture
def document(api, db):
    response = api.get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def operation(document):
    return document["paths"][PATH]["post"]


def test_the_operation_its_scope_and_parameters(document, operation):
    assert operation["operationId"] == "create_transcript"
    assert operation["security"] == [{"bearer": ["transcripts:read"]}, {"oauth2": ["transcripts:read"]}]
    params = {p["name"]: p for p in operation["parameters"]}
    assert params["call_id"]["in"] == "path"
    assert params["call_id"]["schema"]["pattern"] == "^call_[0-9A-Za-z]{1,64}$"
    assert params["Idempotency-Key"]["in"] == "header"
    ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert set(body["properties"]) == {"language"} and body["properties"]["language"]["maxLength"] == 16
    assert body["additionalProperties"] is False and not body.get("required")
    assert "Idempotency-Key is required" in operation["description"]


def test_every_answer_is_documented(operation):
    responses = operation["responses"]
    assert {"200", "202", "400", "401", "402", "403", "404", "409", "429"} <= set(responses)
    for status in ("200", "202"):
        schema = responses[status]["content"]["application/json"]["schema"]
        assert schema["properties"]["object"]["enum"] == ["transcript"]
        assert schema["properties"]["status"]["enum"] == ["queued", "processing", "completed", "failed"]
        assert schema["properties"]["failure_reason"]["enum"] == [
            "audio_unavailable",
            "too_short",
            "provider_error",
            None,
        ]
    for status in ("400", "402", "403", "404", "409", "429"):
        assert responses[status]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert "insufficient_credits" in responses["402"]["description"]
    assert {"insufficient_scope", "forbidden"} <= set(responses["403"]["description"].replace(":", " ").split())
    assert "param call_id" in responses["404"]["description"]
    assert {"call_not_ended", "call_not_recorded"} <= set(
        responses["409"]["description"].replace(";", " ").replace(".", " ").split()
    )
    # The example answer is a transcript as the serializer writes it (the 2xx shown first).
    example = responses["200"]["content"]["application/json"]["example"]
    assert example["object"] == "transcript" and example["id"].startswith("trs_")


@pytest.mark.django_db(transaction=True)
def test_real_answers_match_the_document(document, operation):
    owner = UserFactory()
    ready(owner)
    sharing_update(user=owner, call_summaries=True, message_reading=False)
    placer = Placer(owner, SCOPES)
    components = document["components"]

    def check(response):
        schema = operation["responses"][str(response.status_code)]["content"]["application/json"]["schema"]
        jsonschema.validate(response.json(), {**schema, "components": components})

    with frozen_clock() as clock:
        for to in (STAYS, TRANSCRIPTION_FAILS_TO):
            call = placer.quote_and_place(to, record=True)
            run_due(now=clock.tick(10))
            clock.tick(30)
            placer.end(call["id"])
            queued = placer.post(f"/v1/calls/{call['id']}/transcript", {"language": "auto"})
            assert queued.status_code == 202
            check(queued)
            run_due(now=clock.tick(6))
            finished = placer.post(f"/v1/calls/{call['id']}/transcript")
            assert finished.status_code == 200
            check(finished)
        check(placer.post("/v1/calls/call_nosuch/transcript"))
