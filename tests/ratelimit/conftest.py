"""The ratelimit tests' limiter: the in-process store on a hand-driven clock (tests/support/limiter.py)."""

from tests.support import limiter

clock, store = limiter.clock, limiter.store
