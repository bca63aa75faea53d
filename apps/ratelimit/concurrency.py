"""A cap on work in progress, the one row type of the budgets table that is not a rate.

A budget counts requests over time; a cap counts requests in flight: at most
``limit`` at once across every process sharing the limiter's store (with Redis,
one cap for every process and machine; with the in-process store of the quick
start, one for that process). ``services.ratelimit_in_flight`` holds a slot.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Concurrency:
    name: str
    limit: int  # slots held at once, server-wide

    @property
    def key(self) -> str:
        return f"inflight:{self.name}"
