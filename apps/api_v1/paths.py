"""A path id of a /v1 route (``/v1/contacts/{contact_id}``): its OpenAPI parameter, and the 404 of an
id that names nothing of the caller's.

The document's 404 of each path ``…_id`` (``openapi.framework_errors``) and the view's answer name
the same thing in the same words (``path_noun``).
"""

from dataclasses import dataclass

from drf_spectacular.utils import OpenApiParameter

from apps.core.errors import ApiError
from apps.core.ids import id_pattern


def path_noun(name: str) -> str:
    """What a path id names, in words: ``balance_transaction_id`` is a balance transaction."""
    return name.removesuffix("_id").replace("_", " ")


def found_or_404(value, param: str, message: str | None = None):
    """``value``, which a selector read for the id ``param``; None is 404 ``not_found`` naming
    ``param`` ("No such <noun>." unless ``message`` says more)."""
    if value is None:
        raise ApiError("not_found", message or f"No such {path_noun(param)}.", param=param)
    return value


@dataclass(frozen=True)
class PathId:
    """The path parameter ``name``, an id of ``prefix``: its pattern is ``core.ids.id_pattern``'s
    unless the resource's ids follow a ``pattern`` of their own. Its 404 says "No such <noun>."
    unless the resource's ``message`` says more (``found_or_404``); without a ``description`` the
    document describes the parameter by its pattern alone."""

    name: str
    prefix: str
    description: str | None = None
    pattern: str | None = None
    message: str | None = None

    @property
    def parameter(self) -> OpenApiParameter:
        """For ``extend_schema(parameters=[...])``."""
        pattern = self.pattern or id_pattern(self.prefix)
        return OpenApiParameter(self.name, str, OpenApiParameter.PATH, pattern=pattern, description=self.description)

    def found(self, value):
        """``value``, read for this path id; None is 404 ``not_found`` naming it."""
        return found_or_404(value, self.name, self.message)
