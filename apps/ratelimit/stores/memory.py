"""In-process store for the single-process quick start.

Budgets live in this process only: two server processes would each grant the
full budget, so production uses the Redis store (a system check warns).
"""

import secrets
import threading
import time
from collections.abc import Callable, Sequence

from .. import gcra
from .base import Store

PRUNE_EVERY = 1000


class MemoryStore(Store):
    def __init__(self, *, key_prefix: str = "rl", clock: Callable[[], float] = time.time, **options):
        super().__init__(key_prefix=key_prefix)
        self.clock = clock
        self._lock = threading.Lock()
        self._tats: dict[str, tuple[int, int]] = {}  # key -> (tat, expires_at) in ms
        self._flags: dict[str, tuple[int]] = {}  # key whose alert ceiling was crossed -> (expires_at,)
        self._slots: dict[str, dict[str, int]] = {}  # key -> {holder token: expires_at}
        self._counts: dict[str, tuple[int, int]] = {}  # key -> (count, expires_at)
        self._calls = 0

    def evaluate(self, checks: Sequence[gcra.Check], *, now_ms: int | None = None):
        checks = list(checks)
        with self._lock:
            now = int(self.clock() * 1000) if now_ms is None else now_ms
            keys = [self.full_key(c.key) for c in checks]
            tats = [self._live(self._tats, k, now) for k in keys]
            alerted = [self._live(self._flags, k, now) is not None for k in keys]
            allowed, results, writes, flags = gcra.evaluate(checks, [t[0] if t else None for t in tats], alerted, now)
            for i, write in writes.items():
                self._tats[keys[i]] = (write.tat, now + write.ttl_ms)
            for i in flags:
                self._flags[keys[i]] = (now + checks[i].budget.period * 1000,)
            self._calls += 1
            if self._calls % PRUNE_EVERY == 0:
                self._prune(now)
        return now, allowed, results

    @staticmethod
    def _live(table: dict, key: str, now: int):
        entry = table.get(key)
        if entry is None or entry[-1] <= now:
            return None
        return entry

    def _prune(self, now: int) -> None:
        for table in (self._tats, self._flags, self._counts):
            for key in [k for k, v in table.items() if v[-1] <= now]:
                del table[key]

    def slot_acquire(self, key: str, *, limit: int, ttl_ms: int, now_ms: int | None = None) -> str | None:
        with self._lock:
            now = int(self.clock() * 1000) if now_ms is None else now_ms
            full_key = self.full_key(key)
            held = {token: until for token, until in self._slots.get(full_key, {}).items() if until > now}
            self._slots[full_key] = held
            if len(held) >= limit:
                return None
            token = secrets.token_hex(8)
            held[token] = now + ttl_ms
            return token

    def slot_release(self, key: str, token: str) -> None:
        with self._lock:
            self._slots.get(self.full_key(key), {}).pop(token, None)

    def count(self, key: str, *, window_ms: int) -> int:
        with self._lock:
            now = int(self.clock() * 1000)
            full_key = self.full_key(key)
            held = self._live(self._counts, full_key, now)
            count, until = (held[0] + 1, held[1]) if held else (1, now + window_ms)
            self._counts[full_key] = (count, until)
            return count

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()
            self._tats.clear()
            self._flags.clear()
            self._slots.clear()
