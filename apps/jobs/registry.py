"""The handlers, by kind: registered by each app's jobs.py when the apps are ready."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured

from . import lanes


@dataclass(frozen=True)
class HandlerSpec:
    kind: str
    fn: Callable[[dict], None]
    # Overrides of settings.JOBS for this kind: how many runs before the row fails, and the
    # wait after each failed run (the last one repeats), instead of the exponential back-off.
    max_attempts: int | None = None
    retry_delays: tuple[float, ...] | None = None
    # Runs the handler and the row's success mark in one transaction: a handler that only
    # writes to the database then takes effect exactly once. Off for handlers that hold a
    # transaction too long otherwise (a network call); they are at-least-once.
    atomic: bool = True
    # The lane its rows run in (apps/jobs/lanes.py): rows of one lane never wait on another's.
    lane: str = lanes.DEFAULT


_handlers: dict[str, HandlerSpec] = {}


def _name(fn) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def register(spec: HandlerSpec) -> None:
    known = _handlers.get(spec.kind)
    if known is not None and _name(known.fn) != _name(spec.fn):
        raise ImproperlyConfigured(f"Job kind {spec.kind!r} has two handlers: {_name(known.fn)} and {_name(spec.fn)}.")
    _handlers[spec.kind] = spec


def unregister(kind: str) -> None:
    _handlers.pop(kind, None)


def get(kind: str) -> HandlerSpec | None:
    return _handlers.get(kind)


def kinds() -> list[str]:
    return sorted(_handlers)


def kinds_of(lane: str) -> list[str]:
    return sorted(kind for kind, spec in _handlers.items() if spec.lane == lane)


def handler(
    kind: str,
    *,
    max_attempts: int | None = None,
    retry_delays: Sequence[float] | None = None,
    atomic: bool = True,
    lane: str = lanes.DEFAULT,
):
    lanes.get(lane)  # an unknown lane fails at start-up, not at the first enqueue
    if not kind or len(kind) > 100:
        raise ImproperlyConfigured(f"Job kind {kind!r} must be 1 to 100 characters.")
    if max_attempts is not None and max_attempts < 1:
        raise ImproperlyConfigured(f"Job kind {kind!r}: max_attempts must be at least 1.")

    def decorate(fn: Callable[[dict], None]) -> Callable[[dict], None]:
        register(
            HandlerSpec(
                kind=kind,
                fn=fn,
                max_attempts=max_attempts,
                retry_delays=tuple(retry_delays) if retry_delays else None,
                atomic=atomic,
                lane=lane,
            )
        )
        return fn

    return decorate
