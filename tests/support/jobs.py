"""Durable work in tests: handlers registered for one test, and the clock."""

import contextlib
from datetime import datetime
from unittest import mock

from apps.jobs import registry


@contextlib.contextmanager
def handlers(**kinds):
    """Register ``kind=fn`` handlers for the block (a kind's dots written as ``__``)."""
    specs = {}
    for name, fn in kinds.items():
        kind = name.replace("__", ".")
        specs[kind] = registry.get(kind)
        registry.register(registry.HandlerSpec(kind=kind, fn=fn))
    try:
        yield
    finally:
        for kind, previous in specs.items():
            registry.unregister(kind)
            if previous is not None:
                registry.register(previous)


@contextlib.contextmanager
def register(spec: registry.HandlerSpec):
    previous = registry.get(spec.kind)
    registry.unregister(spec.kind)
    registry.register(spec)
    try:
        yield spec
    finally:
        registry.unregister(spec.kind)
        if previous is not None:
            registry.register(previous)


@contextlib.contextmanager
def frozen(at: datetime):
    """``timezone.now()`` fixed at ``at`` for the block (move it with ``clock.at = ...``)."""
    clock = mock.Mock()
    clock.at = at
    with mock.patch("django.utils.timezone.now", side_effect=lambda: clock.at):
        yield clock


class Stopper:
    """A stop flag (the worker's, its listener's) with a clock-free wait: records each pause, and
    is set after ``after`` of them."""

    def __init__(self, after):
        self.after, self.waits = after, []

    def is_set(self):
        return len(self.waits) >= self.after

    def wait(self, seconds):
        self.waits.append(seconds)


@contextlib.contextmanager
def without_schedules():
    """No recurring work declared for the block: a worker then writes only the rows a test made."""
    from apps.jobs import schedules

    declared = dict(schedules._schedules)
    schedules._schedules.clear()
    try:
        yield
    finally:
        schedules._schedules.update(declared)
