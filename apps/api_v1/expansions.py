"""Objects one resource app expands for another (Stripe's ``expand[]``): the whole object, as its own
endpoint writes it, without either app importing the other.

The app that owns an object registers a loader when it starts (its ``AppConfig.ready``); an
app whose records refer to that object asks for the page's references in one call. A loader
reads with the owner's selectors, so it filters by the principal's account and mode like any
other read of that object: another account's or mode's id is simply absent from its answer.
"""

from collections.abc import Callable, Iterable

# name -> loader(principal, ids) -> {id: the object as its endpoint writes it}
Loader = Callable[[object, list[str]], dict[str, dict]]
_LOADERS: dict[str, Loader] = {}


def register_expansion(name: str, loader: Loader) -> None:
    _LOADERS[name] = loader


def expansion_available(name: str) -> bool:
    return name in _LOADERS


def expand_objects(name: str, *, principal, ids: Iterable[str | None]) -> dict[str, dict]:
    """The objects of ``ids`` (None and repeats skipped) that the principal may read, by id; an id
    missing from the answer is of an object that is gone or not the principal's."""
    wanted = list(dict.fromkeys(i for i in ids if i))
    if not wanted:
        return {}
    return _LOADERS[name](principal, wanted)
