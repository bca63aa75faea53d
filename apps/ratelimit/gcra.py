"""GCRA arithmetic over a batch of budgets, all or nothing.

The Redis store runs the same steps in Lua (stores/redis_gcra.lua); the
in-process store runs this module. State per key is one integer: the
theoretical arrival time (TAT) in milliseconds. A request of ``cost`` units is
allowed when ``max(tat, now) + cost * interval - now <= capacity``.

Every blocking budget must allow the request or none is consumed, so a caller
denied by its per-user budget does not also drain its per-principal one.
Alert-only budgets never block and are consumed on their own.
"""

from dataclasses import dataclass

from .budgets import Budget


@dataclass(frozen=True)
class Check:
    """One budget applied to one caller.

    ``peek`` asks whether ``cost`` more would pass without consuming anything
    (the token endpoint's back-off test). ``advertise`` False keeps a check
    out of the headers unless it is the one that denies.
    """

    budget: Budget
    key: str
    cost: int = 1
    peek: bool = False
    advertise: bool = True

    @property
    def flags(self) -> str:
        return ("a" if self.budget.alert_only else "") + ("p" if self.peek else "")


@dataclass(frozen=True)
class Result:
    allowed: bool
    remaining: int
    wait_ms: int  # until there is room for one more request (0: there is room now)
    crossed: bool = False  # an alert-only budget crossed its ceiling just now


@dataclass(frozen=True)
class Write:
    tat: int
    ttl_ms: int


def evaluate(
    checks: list[Check], tats: list[int | None], alerted: list[bool], now: int
) -> tuple[bool, list[Result], dict[int, Write], list[int]]:
    """Returns (allowed, results, TAT writes by check index, indexes of alert flags to set)."""
    bases, news, oks = [], [], []
    allowed = True
    for check, tat in zip(checks, tats, strict=True):
        budget = check.budget
        base = max(tat if tat is not None else now, now)
        new = base + check.cost * budget.interval_ms
        ok = new - now <= budget.capacity_ms
        bases.append(base)
        news.append(new)
        oks.append(ok)
        if not ok and not budget.alert_only:
            allowed = False

    results: list[Result] = []
    writes: dict[int, Write] = {}
    flags: list[int] = []
    for i, check in enumerate(checks):
        budget = check.budget
        interval, capacity = budget.interval_ms, budget.capacity_ms
        state = bases[i]
        if oks[i] and not check.peek and (budget.alert_only or allowed):
            state = news[i]
            if budget.penalty and capacity - (state - now) < interval:
                # The last unit is spent: stay empty for the whole back-off.
                state = now + budget.penalty * 1000 + capacity - interval
            writes[i] = Write(state, max(1, state - now))
        remaining = max(0, (capacity - (state - now)) // interval)
        wait = (state - now) - (capacity - interval)
        if not oks[i]:
            wait = max(wait, news[i] - now - capacity)
        crossed = False
        if budget.alert_only and not oks[i] and not alerted[i]:
            crossed = True
            flags.append(i)
        results.append(Result(oks[i], int(remaining), int(max(0, wait)), crossed))
    return allowed, results, writes, flags
