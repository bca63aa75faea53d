"""The benchmark's floor views (mounted only with BENCH_FLOOR, never in a deployment; bench/run.py)."""

import functools

from django.http import JsonResponse

from . import conf


def bench_floor(request):
    """A bare JSON view behind the same middleware: the ceiling any endpoint is measured against."""
    return JsonResponse({"object": "floor", "ok": True})


def bench_floor_round_trip(request):
    """The floor plus one EVALSHA of a script that does nothing: what a Redis round trip alone costs.

    Sent as the limiter sends its own scripts, so the row measures the same client path.
    """
    store = conf.get_store()
    store.run_script(_noop_script(store), [], [])
    return JsonResponse({"object": "floor", "ok": True})


@functools.cache
def _noop_script(store):
    return store.client.register_script("return 1")
