"""Import-linter contract types whose module lists cover apps nobody has written yet.

The built-in contracts name their modules; a new app is then outside every rule until
someone edits the lists. These three derive their lists from the import graph instead:

- ``only``: the source apps import no app of the project but the ones allowed, so an
  app written later is forbidden to them by default;
- ``resources_independent`` and ``resources_forbidden``: every app of the project is a
  resource app except the ones named once, in ``.importlinter``'s ``not_resource_apps``
  (session option), so a new app is held to the resource apps' rules until it is named
  there with its own contract.

Each reuses a built-in contract's check and report, with its modules filled in.
"""

from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.independence import IndependenceContract
from importlinter.domain import fields
from importlinter.domain.imports import ModuleExpression

_modules = fields.SetField(subfield=fields.ModuleExpressionField(), required=False)


def project_apps(graph, session_options) -> set[str]:
    """Every top-level package of the root package: the project's apps, present and future."""
    (root,) = session_options["root_packages"]
    return {child for child in graph.find_children(root) if graph.find_children(child)}


def not_resource_apps(session_options) -> set[str]:
    raw = session_options.get("not_resource_apps", "")
    names = raw if isinstance(raw, list) else raw.split()
    return {name.strip() for name in names if name.strip()}


def resource_apps(graph, session_options) -> set[str]:
    return project_apps(graph, session_options) - not_resource_apps(session_options)


def _expressions(names) -> set[ModuleExpression]:
    return {ModuleExpression(name) for name in sorted(names)}


class OnlyContract(ForbiddenContract):
    """The source apps import no app of the project but ``allowed_modules`` (and themselves)."""

    type_name = "only"
    forbidden_modules = _modules
    allowed_modules = _modules

    def check(self, graph, verbose):
        sources = {expression.expression for expression in self.source_modules}
        allowed = {expression.expression for expression in self.allowed_modules or ()}
        self.forbidden_modules = _expressions(project_apps(graph, self.session_options) - sources - allowed)
        return super().check(graph, verbose)


class ResourcesIndependentContract(IndependenceContract):
    """No resource app imports another, directly or through other modules."""

    type_name = "resources_independent"
    modules = _modules

    def check(self, graph, verbose):
        self.modules = _expressions(resource_apps(graph, self.session_options))
        return super().check(graph, verbose)


class ResourcesForbiddenContract(ForbiddenContract):
    """No resource app imports ``forbidden_modules``."""

    type_name = "resources_forbidden"
    source_modules = _modules

    def check(self, graph, verbose):
        self.source_modules = _expressions(resource_apps(graph, self.session_options))
        return super().check(graph, verbose)
