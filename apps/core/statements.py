"""How long one database statement may run, and how a statement cut off at that bound is told apart.

A request may never hold a worker until gunicorn kills it (the client then gets
gunicorn's HTML 500, without a ``Request-Id``): every connection of the service
asks the database to cancel any statement past ``DATABASE_STATEMENT_TIMEOUT``
seconds (PostgreSQL's ``statement_timeout``; on SQLite a progress handler,
apps/core/sqlite3), and the cancelled statement is answered like a database outage, the
contract's 503 with ``Retry-After`` (apps/core/middleware.py). Commands run by
``manage.py`` (migrations, ``import_rates``, the worker) get
``DATABASE_COMMAND_STATEMENT_TIMEOUT`` instead: they serve no client and may
rewrite whole tables. ``manage.py runserver`` serves requests, so it keeps the
requests' bound.
"""

import logging

from django.conf import settings

logger = logging.getLogger("apps.core.statements")

_WEB_SERVERS = frozenset({"runserver"})
_command = False


def run_as_command(argv: list[str]) -> None:
    """Called by manage.py before Django starts: its commands, other than a web server, get the longer bound."""
    global _command
    _command = len(argv) > 1 and argv[1] not in _WEB_SERVERS


def statement_timeout_ms() -> int:
    """The bound of this process's statements in milliseconds; 0 means none."""
    seconds = settings.DATABASE_COMMAND_STATEMENT_TIMEOUT if _command else settings.DATABASE_STATEMENT_TIMEOUT
    return max(0, round(seconds * 1000))


def sent_on_connect() -> bool:
    """Whether each connection asks for the bound itself (a start-up parameter). Behind a pooler
    that refuses start-up parameters (DATABASE_POOLER) the bound is the database role's instead,
    set by the operator (docs/decisions/scale-out.md, "PgBouncer and connection pools")."""
    return not settings.DATABASE_POOLER


def check_role_bound(role_bound_ms: int) -> bool:
    """Where the bound is the role's: False, with one warning for the operator, when the role's
    bound is missing or looser than this process's."""
    wanted = statement_timeout_ms()
    if wanted and not 0 < role_bound_ms <= wanted:
        logger.warning(
            "behind DATABASE_POOLER=%s the database role's statement_timeout is %s ms, not at most %s ms: "
            "set it with ALTER ROLE ... SET statement_timeout",
            settings.DATABASE_POOLER,
            role_bound_ms,
            wanted,
        )
        return False
    return True


def is_statement_timeout(exception: BaseException) -> bool:
    """True for a statement the database cancelled: PostgreSQL's (the bound above, or an operator's
    cancel), or SQLite's interrupted by apps/core/sqlite3's progress handler."""
    # Django wraps the driver's error; the driver's class is the cause. Named, not imported,
    # so that a deployment on SQLite needs no PostgreSQL driver.
    cause = getattr(exception, "__cause__", None)
    if type(cause).__name__ == "QueryCanceled":
        return True
    return type(cause).__module__ == "sqlite3" and str(cause) == "interrupted"


def note_if_cancelled(request, exception: BaseException) -> None:
    """One log line for a cancelled statement, so that an operator sees which path ran into the bound."""
    if is_statement_timeout(exception):
        path = getattr(request, "path", "?")
        logger.warning("statement cancelled at the bound of %s ms: %s %s", statement_timeout_ms(), request.method, path)
