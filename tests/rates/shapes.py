"""The exact field set of the rate object (docs/design.md, Phase 2): what GET /v1/rates answers, what the
OpenAPI document declares, and what svc_get_rate says besides its display strings."""

RATE_FIELDS = {
    "object",
    "query",
    "to",
    "estimate",
    "country",
    "country_name",
    "label",
    "prefix",
    "currency",
    "per_minute_amount_decimal",
    "per_minute_min_amount_decimal",
    "per_minute_max_amount_decimal",
    "billing_increment",
    "next_step",
    "livemode",
}
