"""What a token request looks like, for the service and for the stock peer alike (no Django here).

Each line is one request for bench/requests.lua: METHOD <TAB> PATH <TAB> headers <TAB> body.
"""

import base64
import hashlib
from urllib.parse import urlencode

REDIRECT = "http://127.0.0.1:9/callback"
VERIFIER = "bench-verifier-" + "x" * 40
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()


def form_line(path: str, i: int, **fields) -> str:
    # A distinct benchmarking-range source per request keeps the service's per-IP flood
    # guard (docs/spec.md 8.2) from dominating what is measured; the peer has none and ignores it.
    headers = f"Content-Type: application/x-www-form-urlencoded|X-Forwarded-For: {source_address(i)}"
    return f"POST\t{path}\t{headers}\t{urlencode(fields)}"


def source_address(i: int) -> str:
    return f"198.18.{(i // 250) % 250}.{i % 250 + 1}"
