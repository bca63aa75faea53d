"""Requests to addresses that others choose: resolve, refuse non-global addresses, connect to the checked address.

Client metadata documents (a client's ``client_id`` URL) and webhook deliveries
(an endpoint's ``url``) both make the server connect where someone else says.
The rules live here once:

- the host is resolved within the request's deadline (``getaddrinfo`` takes no
  timeout of its own, so the lookup runs on a daemon thread that the request
  stops waiting for; at most ``MAX_LOOKUPS`` such lookups run at once in a
  process, so a resolver that hangs costs a few threads, never one a request);
- every resolved address must be globally routable (``address_allowed``): one
  internal answer refuses the host, so a split answer never reaches an internal
  service;
- the connection goes to the address just checked, with TLS verified against the
  host name (SNI, certificate and ``Host`` use the name), so a second DNS answer
  (rebinding) can never move it;
- no redirect is followed, and a watchdog shuts the socket when the deadline
  passes (urllib3's read timeout restarts with every chunk, so a server that
  trickles its answer would otherwise hold the caller for hours).

A caller that posts to the same receivers again and again (webhook deliveries) may keep
the connection open between requests (``keep_alive=True``): each thread keeps its own
pools, keyed by the scheme, the checked address, the port and the name TLS verifies, so
every request is still resolved and checked first, and a kept connection is only ever
reused for the address it was opened to after that address passed the check again. An
answer not read to its end closes its connection; a kept connection that the receiver
closed while idle is found out before use (urllib3 checks it), and one closed as the
request went out is tried once more on a new connection.

Callers may admit loopback (webhooks in test mode) and, in tests only, exact
addresses that no deployment lists (their own settings name them).
"""

import contextlib
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass

import urllib3

MAX_LOOKUPS = 8
_lookups = threading.BoundedSemaphore(MAX_LOOKUPS)

# ``ipaddress.is_global`` is the base and is not enough on Python 3.11: it calls IPv4
# and IPv6 multicast, IPv6 site-local and the newer special-use ranges global, and it
# judges an IPv6 address that carries an IPv4 one by its IPv6 prefix alone, so
# ``::ffff:0:a00:5`` or ``64:ff9b:1::a00:5`` would reach 10.0.0.5 through a translator.
# Every IPv4-in-IPv6 form is refused outright, whatever IPv4 it carries: a host that
# others may reach has a native address of its own, and decoding each form misses the
# forms the decoder does not know.
REFUSED_NETWORKS = tuple(
    ipaddress.ip_network(network)
    for network in (
        # IPv4 inside IPv6.
        "::/96",  # IPv4-compatible (RFC 4291 2.5.5.1), with :: and ::1
        "::ffff:0:0/96",  # IPv4-mapped
        "::ffff:0:0:0/96",  # IPv4-translated (RFC 2765)
        "64:ff9b::/96",  # NAT64 well-known prefix (RFC 6052)
        "64:ff9b:1::/48",  # NAT64 local use (RFC 8215)
        "2002::/16",  # 6to4 (RFC 3056)
        "2001::/32",  # Teredo (RFC 4380)
        # Special-use ranges that is_global lets through on Python 3.11.
        "2001::/23",  # IETF protocol assignments (RFC 2928)
        "fec0::/10",  # site-local (deprecated, RFC 3879)
        "ff00::/8",  # IPv6 multicast
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # SRv6 segment identifiers (RFC 9602)
        "224.0.0.0/4",  # IPv4 multicast
        "192.0.0.0/24",  # IETF protocol assignments (RFC 6890)
        "192.88.99.0/24",  # 6to4 relay anycast (deprecated, RFC 7526)
    )
)
LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


class EgressError(Exception):
    """The request was not made or not completed; the message says why (safe to show the URL's owner)."""


class LookupFailed(EgressError):
    """The host was not resolved (no answer, no address, or not within the deadline)."""


class AddressRefused(EgressError):
    """The host resolves to an address that may not be contacted."""

    def __init__(self, address: str):
        super().__init__(f"resolves to a non-public address ({address})")
        self.address = address


def address_allowed(ip: str, *, loopback: bool = False, admitted=()) -> bool:
    """Whether ``ip`` (an address as ``getaddrinfo`` gives it) may be contacted.

    ``loopback`` admits 127.0.0.0/8 and ::1 (never their IPv4-in-IPv6 forms);
    ``admitted`` lists exact addresses a test admits.
    """
    if ip in admitted:
        return True
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if loopback and is_loopback(ip):
        return True
    if any(address.version == network.version and address in network for network in REFUSED_NETWORKS):
        return False
    return address.is_global


def _getaddrinfo_within(hostname: str, port: int, timeout: float) -> list:
    if timeout <= 0:
        raise LookupFailed("host was not resolved within the deadline")
    if not _lookups.acquire(blocking=False):
        raise LookupFailed("too many host lookups in progress")
    outcome: dict = {}
    done = threading.Event()

    def lookup():
        try:
            outcome["infos"] = socket.getaddrinfo(hostname, port, proto=socket.IPPROTO_TCP)
        except BaseException as exc:  # handed to the waiting caller below
            outcome["error"] = exc
        finally:
            _lookups.release()
            done.set()

    threading.Thread(target=lookup, name="egress-lookup", daemon=True).start()
    if not done.wait(timeout):
        raise LookupFailed("host was not resolved within the deadline")
    if "error" in outcome:
        raise LookupFailed("could not resolve host") from outcome["error"]
    return outcome["infos"]


def is_loopback(ip: str) -> bool:
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return any(address.version == n.version and address in n for n in LOOPBACK)


def resolve_checked(
    hostname: str, port: int, *, deadline: float, loopback: bool = False, admitted=(), loopback_only: bool = False
) -> list[str]:
    """The host's addresses, each allowed; raises AddressRefused if any one is not.

    ``deadline`` is a ``time.monotonic()`` instant that covers the lookup;
    ``loopback_only`` allows loopback addresses and nothing else (plain http in test mode).
    """
    try:
        ips = [str(ipaddress.ip_address(hostname))]  # a literal needs no lookup (nor its thread)
    except ValueError:
        infos = _getaddrinfo_within(hostname, port, deadline - time.monotonic())
        ips = list(dict.fromkeys(info[4][0] for info in infos))
    if not ips:
        raise LookupFailed("host did not resolve to any address")
    for ip in ips:
        if loopback_only and not (is_loopback(ip) or ip in admitted):
            raise AddressRefused(ip)
        if not address_allowed(ip, loopback=loopback or loopback_only, admitted=admitted):
            raise AddressRefused(ip)
    return ips


def connection_pool(*, scheme: str, ip: str, port: int, hostname: str, timeout: float, ssl_context=None):
    """A one-connection pool to the checked ``ip``, TLS verified against ``hostname``; no retries."""
    limits = urllib3.Timeout(connect=timeout, read=timeout, total=timeout)
    if scheme == "https":
        return urllib3.HTTPSConnectionPool(
            host=ip,
            port=port,
            timeout=limits,
            retries=False,
            maxsize=1,
            ssl_context=ssl_context or ssl.create_default_context(),
            server_hostname=hostname,
        )
    return urllib3.HTTPConnectionPool(host=ip, port=port, timeout=limits, retries=False, maxsize=1)


# Kept pools per thread: a worker thread's receivers, the least recently used closed past the bound.
KEPT_POOLS = 32
_kept = threading.local()


def _kept_pool(*, scheme: str, ip: str, port: int, hostname: str, timeout: float, ssl_context=None):
    pools = getattr(_kept, "pools", None)
    if pools is None:
        pools = _kept.pools = {}
    key = (scheme, ip, port, hostname, id(ssl_context) if ssl_context is not None else None)
    pool = pools.pop(key, None)
    if pool is None:
        pool = connection_pool(
            scheme=scheme, ip=ip, port=port, hostname=hostname, timeout=timeout, ssl_context=ssl_context
        )
        # The context must outlive the pool for its id to stay this pool's.
        pool.kept_context = ssl_context
    pools[key] = pool  # last: the most recently used
    while len(pools) > KEPT_POOLS:
        pools.pop(next(iter(pools))).close()
    return pool


def _drop_kept(pool) -> None:
    pools = getattr(_kept, "pools", {})
    for key in [key for key, kept in pools.items() if kept is pool]:
        del pools[key]
    pool.close()


def close_kept_pools() -> None:
    """Close this thread's kept connections (a worker thread stopping, a test ending)."""
    for pool in getattr(_kept, "pools", {}).values():
        pool.close()
    _kept.pools = {}


@contextlib.contextmanager
def watchdog(response, deadline: float):
    """Shuts the response's socket when ``deadline`` passes, whatever the server trickles."""
    timer = threading.Timer(max(deadline - time.monotonic(), 0), response.shutdown)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict
    body: bytes


def post(
    url_parts,
    *,
    body: bytes,
    headers: dict,
    timeout: float,
    loopback: bool = False,
    loopback_only: bool = False,
    admitted=(),
    ssl_context=None,
    max_body: int = 1024,
    keep_alive: bool = False,
) -> Answer:
    """POST ``body`` to a parsed URL (``urllib.parse.urlsplit``), every rule above applied.

    The deadline (``timeout`` seconds) covers the lookup, the connection, the
    request and reading at most ``max_body`` bytes of the answer (the rest is
    dropped). A redirect is returned as it is, never followed. ``keep_alive``: the
    connection stays open for this thread's next request to the same checked address.
    """
    deadline = time.monotonic() + timeout
    scheme = url_parts.scheme
    port = url_parts.port or (443 if scheme == "https" else 80)
    ips = resolve_checked(
        url_parts.hostname, port, deadline=deadline, loopback=loopback, admitted=admitted, loopback_only=loopback_only
    )
    path = (url_parts.path or "/") + (f"?{url_parts.query}" if url_parts.query else "")
    default_port = 443 if scheme == "https" else 80
    host_header = url_parts.hostname if ":" not in url_parts.hostname else f"[{url_parts.hostname}]"
    if url_parts.port and url_parts.port != default_port:
        host_header = f"{host_header}:{url_parts.port}"
    sent_headers = {"Host": host_header, "Accept-Encoding": "identity", **headers}
    last_error: Exception | None = None
    for ip in ips:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        options = {"scheme": scheme, "ip": ip, "port": port, "hostname": url_parts.hostname, "ssl_context": ssl_context}
        pool = _kept_pool(**options, timeout=remaining) if keep_alive else connection_pool(**options, timeout=remaining)
        try:
            try:
                return _post_once(pool, path, body, sent_headers, deadline, max_body)
            except urllib3.exceptions.ProtocolError as exc:
                # A kept connection the receiver closed as the request went out: once more on a new one.
                if not (keep_alive and getattr(exc, "reused", False)) or deadline - time.monotonic() <= 0:
                    raise
                return _post_once(pool, path, body, sent_headers, deadline, max_body)
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            last_error = exc
            if keep_alive:
                _drop_kept(pool)  # whatever state its connection is in, the next request starts afresh
        finally:
            if not keep_alive:
                pool.close()
    if last_error is not None:
        raise EgressError(_describe(last_error)) from last_error
    raise EgressError("no answer within the deadline")


def _post_once(pool, path: str, body: bytes, headers: dict, deadline: float, max_body: int) -> Answer:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise urllib3.exceptions.TimeoutError("no answer within the deadline")
    reused = pool.num_requests > 0
    try:
        response = pool.urlopen(
            "POST",
            path,
            body=body,
            headers=headers,
            redirect=False,
            preload_content=False,
            timeout=urllib3.Timeout(connect=remaining, read=remaining, total=remaining),
        )
    except urllib3.exceptions.ProtocolError as exc:
        exc.reused = reused
        raise
    try:
        with watchdog(response, deadline):
            data = response.read(max_body, decode_content=False) or b""
            # A body longer than read here would be left on the connection: it is not reused.
            complete = response.length_remaining == 0 or (len(data) < max_body and response.read(1) == b"")
    except BaseException:
        response.close()
        raise
    if not complete or response.headers.get("Connection", "").lower() == "close":
        response.close()
    response.release_conn()
    if time.monotonic() >= deadline:
        raise EgressError("no answer within the deadline")
    return Answer(status=response.status, headers=dict(response.headers), body=data)


def _describe(exc: Exception) -> str:
    if isinstance(exc, urllib3.exceptions.TimeoutError):
        return "no answer within the deadline"
    if isinstance(exc, urllib3.exceptions.SSLError):
        return "TLS handshake failed"
    if isinstance(exc, urllib3.exceptions.NewConnectionError | ConnectionError):
        return "connection refused or failed"
    return "connection failed"
