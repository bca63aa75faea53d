"""The one place /mcp meets the rate limiter: every request counts against the reads budget (SPEC 8.1)."""

from apps.ratelimit.services import ratelimit_reads


def limit_reads(request, principal) -> None:
    """Charge this request to ``principal``'s reads budget (60/min per connection, 120/min per user).

    Raises the 429 ``rate_limited`` / 503 ``rate_limiter_unavailable`` ApiError
    when refused; RateLimitMiddleware writes the RateLimit headers either way.
    """
    ratelimit_reads(request=request, principal=principal)
