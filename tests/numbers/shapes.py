"""The exact field sets of the numbers objects (docs/design.md, Phase 2), in answers and in the OpenAPI document."""

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
