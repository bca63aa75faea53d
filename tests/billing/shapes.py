"""The exact field sets of the billing objects (docs/design.md, Phase 2), in answers and in the OpenAPI document."""

BALANCE_FIELDS = {
    "object",
    "amount",
    "currency",
    "held_amount",
    "available_amount",
    "low_balance",
    "billing_url",
    "livemode",
}
BALANCE_TRANSACTION_FIELDS = {
    "id",
    "object",
    "amount",
    "currency",
    "type",
    "source",
    "description",
    "ending_balance",
    "created",
    "livemode",
}
