"""Client metadata documents (docs/spec.md 5.3; draft-ietf-oauth-client-id-metadata-document).

A client may use an https URL as its ``client_id``; the document served there
must carry that exact URL as its ``client_id``. Fetching a client-chosen URL
from inside the authorization flow is an SSRF surface and, on sync workers, a
way to hold the server's workers, so the fetch follows these rules, built on
DOT's ``oauth2_provider.cimd`` (its URL validation and document reader):

- https only, no userinfo, fragment or dot segments (DOT's URL check);
- the host is resolved once and every resolved address must be globally
  routable (``addresses.py``: private, loopback, link-local, CGNAT, multicast,
  reserved and special-use ranges, and every IPv4-in-IPv6 form, are refused);
  the connection then goes to that same validated address with TLS verified
  against the hostname, so a second DNS answer (rebinding) can never redirect it;
- no redirect is followed (a 3xx is an invalid document), a 3 s deadline for
  the whole fetch, DNS lookup included, a 5 KB body cap, JSON content type only;
- the document must satisfy the registration rules of docs/spec.md 4.3 (the same
  validator as ``POST /oauth/register``) and must not carry a client secret;
- the cost is bounded server-wide (``resolver.py``, rows of
  apps/ratelimit/budgets.py): at most two fetches in flight across every
  process sharing the limiter's store, 30 fetches a minute per host, and a URL
  whose fetch failed is not fetched again for a minute; a request refused any
  of these gets the ``invalid_client`` page at once;
- a valid document is cached for its ``Cache-Control: max-age``
  (``no-store``/``no-cache``: not at all, none given: one hour), never beyond
  24 hours. Once that lapses the document is fetched again, and a failure then
  makes the client unknown: a stale document is never used past its lifetime.
  A failure is never stored as the client's metadata: it only delays the next
  fetch of that URL by a minute.

Tests admit a local fixture server through two test-only settings that no
deployment defines: ``CIMD_TEST_ALLOWED_ADDRESSES`` (addresses exempt from the
public-address rule) and ``CIMD_TEST_CA_FILE`` (the CA that signed the fixture
certificate, trusted instead of the system store).
"""

from .addresses import address_allowed
from .document import DEFAULT_MAX_AGE_SECONDS, cache_lifetime, client_metadata_document_validate
from .fetcher import MAX_CLIENT_ID_LENGTH, ClientMetadataFetcher
from .resolver import client_get_by_metadata_url

__all__ = [
    "DEFAULT_MAX_AGE_SECONDS",
    "MAX_CLIENT_ID_LENGTH",
    "ClientMetadataFetcher",
    "address_allowed",
    "cache_lifetime",
    "client_get_by_metadata_url",
    "client_metadata_document_validate",
]
