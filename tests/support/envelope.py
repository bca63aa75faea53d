"""The one envelope assertion (docs/spec.md 2.4) of the suite."""

ENVELOPE_FIELDS = {"type", "code", "message", "param", "doc_url", "request_id"}


def assert_error(response, status: int, code: str, *, param=None, type_=None):
    """The envelope of docs/spec.md 2.4, with the headers docs/spec.md 4 requires on every error."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) >= ENVELOPE_FIELDS
    assert set(error) - ENVELOPE_FIELDS <= {"billing_url", "confirm_url", "decision"}
    # The page that lifts the refusal comes with user_confirmation_required only.
    assert ("confirm_url" in error) is (code == "user_confirmation_required")
    assert error["code"] == code
    assert error["param"] == param
    assert error["doc_url"] == f"https://docs.example.test/errors#{code}"
    assert error["request_id"] == response["Request-Id"]
    assert isinstance(error["message"], str) and error["message"]
    if type_ is not None:
        assert error["type"] == type_
    return error
