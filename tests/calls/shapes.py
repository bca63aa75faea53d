"""The exact field sets of the objects (DESIGN, Phase 2)."""

CALL_FIELDS = {
    "id",
    "object",
    "direction",
    "status",
    "from",
    "to",
    "to_country",
    "contact",
    "created",
    "answered_at",
    "ended_at",
    "duration",
    "billed_duration",
    "per_minute_amount_decimal",
    "billing_increment",
    "amount",
    "currency",
    "transcript",
    "livemode",
}

TRANSCRIPT_FIELDS = {
    "id",
    "object",
    "call",
    "summary",
    "action_items",
    "reference_numbers",
    "language",
    "created",
    "livemode",
}
