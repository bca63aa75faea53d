"""Limiter outcomes raised as errors.

Both are ApiErrors, so DRF's exception handler renders them as the envelope
unchanged; the middleware renders them in the RFC 6749 shape on /oauth/*.
"""

from apps.core.errors import ApiError


class RateLimited(ApiError):
    def __init__(self, decision):
        self.decision = decision
        seconds = decision.retry_after
        unit = "second" if seconds == 1 else "seconds"
        super().__init__(
            "rate_limited",
            f"Too many requests. Retry in {seconds} {unit}.",
            headers={"Retry-After": str(seconds)},
        )


class LimiterUnavailable(ApiError):
    def __init__(self, retry_after: int = 5):
        self.retry_after = retry_after
        super().__init__("rate_limiter_unavailable", headers={"Retry-After": str(retry_after)})
