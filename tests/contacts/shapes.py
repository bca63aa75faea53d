"""The exact field set of the contact object (docs/design.md, Phase 2): what GET /v1/contacts answers and
what the OpenAPI document declares."""

CONTACT_FIELDS = {"id", "object", "name", "phone_numbers", "created", "livemode"}
