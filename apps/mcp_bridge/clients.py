"""What a handshake-era client declared at ``initialize``, remembered for its later requests.

/mcp keeps no session, and before 2026-07-28 a client states its capabilities only once, in
``initialize``; every later request of that client comes with the same connection's token. So
whether it takes URL-mode elicitation is kept per connection (the account and the app), in the
cache, for as long as a connection's tokens can live. Forgetting it costs only comfort: a client
not known to take URL elicitation gets the same link in an ``isError`` result.
"""

import logging
from datetime import timedelta

from django.core.cache import cache

logger = logging.getLogger(__name__)

REMEMBERED_FOR = timedelta(days=30)


def _key(principal) -> str:
    return f"mcp:url-elicitation:{principal.user.pk}:{principal.client_id or principal.credential_id}"


def remember_url_elicitation(principal, *, declared: bool) -> None:
    try:
        if declared:
            cache.set(_key(principal), 1, int(REMEMBERED_FOR.total_seconds()))
        else:
            cache.delete(_key(principal))
    except Exception:  # the cache unreachable: the link in the result is the answer then
        logger.warning("could not remember an MCP client's elicitation capability", exc_info=True)


def declared_url_elicitation(principal) -> bool:
    try:
        return bool(cache.get(_key(principal)))
    except Exception:
        logger.warning("could not read an MCP client's elicitation capability", exc_info=True)
        return False
