"""The one place /mcp meets the rate limiter: every request counts against the reads budget (SPEC 8.1)."""


def limit_reads(request, principal) -> None:
    """Charge this request to ``principal``'s reads budget; raises the 429/503 ApiError when refused.

    The call site is fixed here so the view never changes when the limiter does.
    """
    from apps.ratelimit.services import ratelimit_reads

    ratelimit_reads(request=request, principal=principal)
