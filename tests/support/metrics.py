"""The metric families /metrics serves (docs/operations.md, "Metrics")."""

FAMILIES = {
    # counted by the web processes
    "service_http_requests",
    "service_http_request_duration_seconds",
    "service_ratelimit_refusals",
    "service_credential_cache_lookups",
    "service_carrier_refusals",
    # read from the database at the scrape
    "service_jobs_due",
    "service_jobs_running",
    "service_jobs_oldest_due_age_seconds",
    "service_jobs_retrying",
    "service_jobs_failed",
    "service_webhook_deliveries_last_hour",
    "service_calls_last_hour",
}
