"""The exact field sets of the numbers objects (docs/design.md, Phase 2): what GET /v1/numbers and
/v1/caller_ids answer and what the OpenAPI document declares."""

NUMBER_FIELDS = {
    "id",
    "object",
    "number",
    "country",
    "type",
    "capabilities",
    "messages_opt_in",
    "status",
    "label",
    "renews_at",
    "created",
    "livemode",
}
CALLER_ID_FIELDS = {"id", "object", "number", "country", "verified_at", "default", "created", "livemode"}
