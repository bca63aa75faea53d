"""The exact field sets of the objects (docs/design.md, Phase 2)."""

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
    # Callback calls (docs/design.md, Phase 3); null or false on the others.
    "quote",
    "your_number",
    "caller_id",
    "record",
    "max_duration",
    "end_reason",
    "status_transitions",
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
