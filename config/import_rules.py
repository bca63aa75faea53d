"""Import-linter contract types whose module lists cover apps nobody has written yet.

The built-in contracts name their modules; a new app is then outside every rule until
someone edits the lists. These derive their lists from the import graph instead:

- ``only``: the source apps import no app of the project but the ones allowed, so an
  app written later is forbidden to them by default;
- ``resources_independent`` and ``resources_forbidden``: every app of the project is a
  resource app except the ones named once, in ``.importlinter``'s ``not_resource_apps``
  (session option), so a new app is held to the resource apps' rules until it is named
  there with its own contract;
- ``no_resources``: the source apps import no resource app, directly or through others;
- ``apps_acyclic``: no two apps of the project import each other, directly or around a
  circle of apps, so the apps stand in floors, each importing only the floors below;
- ``no_registry_lookups``: no module looks a model up in Django's app registry
  (``get_model(``) but the ones allowed, so a reach into another app's models is an import
  the other contracts see (migrations, which read their own historical models, excepted).

All but the last reuse a built-in contract's check and report, with its modules filled in.
"""

import importlib.util
import re
from pathlib import Path

from importlinter.application import output
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.independence import IndependenceContract
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck
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


class NoResourcesContract(ForbiddenContract):
    """The source apps import no resource app, directly or through other modules."""

    type_name = "no_resources"
    forbidden_modules = _modules

    def check(self, graph, verbose):
        self.forbidden_modules = _expressions(resource_apps(graph, self.session_options))
        return super().check(graph, verbose)


def app_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def app_imports(graph, apps: set[str]) -> dict[str, dict[str, tuple[str, str]]]:
    """For each app, the other apps it imports directly, each with one (importer, imported) pair."""
    arrows: dict[str, dict[str, tuple[str, str]]] = {app: {} for app in apps}
    for module in graph.modules:
        source = app_of(module)
        if source not in arrows:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            target = app_of(imported)
            if target in arrows and target != source:
                arrows[source].setdefault(target, (module, imported))
    return arrows


def circles(arrows: dict[str, dict]) -> list[list[str]]:
    """The strongly connected groups of more than one app (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(app: str) -> None:
        index[app] = low[app] = len(index)
        stack.append(app)
        for target in arrows[app]:
            if target not in index:
                visit(target)
                low[app] = min(low[app], low[target])
            elif target in stack:
                low[app] = min(low[app], index[target])
        if low[app] == index[app]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == app:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for app in sorted(arrows):
        if app not in index:
            visit(app)
    return sorted(found)


class AppsAcyclicContract(Contract):
    """No circle of imports between the project's apps (a module-level import anywhere counts)."""

    type_name = "apps_acyclic"

    def check(self, graph, verbose):
        arrows = app_imports(graph, project_apps(graph, self.session_options))
        found = circles(arrows)
        return ContractCheck(kept=not found, metadata={"circles": found, "arrows": arrows})

    def render_broken_contract(self, check):
        arrows = check.metadata["arrows"]
        for group in check.metadata["circles"]:
            output.print_error(f"These apps import each other: {', '.join(group)}.", bold=True)
            output.new_line()
            for source in group:
                for target in sorted(set(arrows[source]) & set(group)):
                    importer, imported = arrows[source][target]
                    output.indent_cursor()
                    output.print_error(f"{source} -> {target} ({importer} imports {imported})", bold=False)
            output.new_line()


REGISTRY_LOOKUP = re.compile(r"\bget_model\(")


def module_file(root: Path, module: str) -> Path | None:
    """The source file of ``module``, a module of the root package found in ``root``."""
    parts = module.split(".")[1:]
    for path in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
        if path.is_file():
            return path
    return None


class NoRegistryLookupsContract(Contract):
    """No module but ``allowed_modules`` calls ``get_model(`` (migrations excepted)."""

    type_name = "no_registry_lookups"
    allowed_modules = fields.ListField(subfield=fields.StringField(), required=False)

    def check(self, graph, verbose):
        (root_package,) = self.session_options["root_packages"]
        root = Path(importlib.util.find_spec(root_package).submodule_search_locations[0])
        allowed = set(self.allowed_modules or ())
        found = []
        for module in sorted(graph.modules):
            if module in allowed or ".migrations." in f"{module}.":
                continue
            path = module_file(root, module)
            if path is None:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if REGISTRY_LOOKUP.search(line):
                    found.append((module, number, line.strip()))
        unused = sorted(module for module in allowed if not self._looks_up(root, module))
        return ContractCheck(kept=not found and not unused, metadata={"found": found, "unused": unused})

    @staticmethod
    def _looks_up(root: Path, module: str) -> bool:
        path = module_file(root, module)
        return path is not None and REGISTRY_LOOKUP.search(path.read_text()) is not None

    def render_broken_contract(self, check):
        for module, number, line in check.metadata["found"]:
            output.print_error(f"{module}:{number} looks a model up in the app registry: {line}", bold=False)
            output.indent_cursor()
            output.print_error("Read it through the owning app's selectors instead.", bold=False)
            output.new_line()
        for module in check.metadata["unused"]:
            output.print_error(f"{module} is allowed to look models up but no longer does: take it off the list.")
            output.new_line()
