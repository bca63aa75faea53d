"""Bench fixtures: many users, each with an API key and OAuth tokens, written in bulk.

Spreading requests over many principals keeps every request under its rate
budget while the limiter still does its full work; single-use credentials
(refresh tokens, codes) are minted one per request. Prints nothing secret to
the terminal: secrets go to files under the bench work directory.

    python -m bench.setup_data users N OUTDIR       # users, API keys, access tokens
    python -m bench.setup_data refresh N OUTDIR     # N refresh tokens, one family each
    python -m bench.setup_data codes N OUTDIR       # N codes (valid 60 s), one family each
"""

import base64
import hashlib
import json
import os
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.utils import timezone  # noqa: E402
from oauth2_provider.models import set_token_value  # noqa: E402

from apps.api_v1.versions import CURRENT_VERSION  # noqa: E402
from apps.apikeys.models import ApiKey  # noqa: E402
from apps.core.ids import digest, new_secret  # noqa: E402
from apps.oauth.models import AccessToken, Application, Grant, RefreshToken  # noqa: E402

User = get_user_model()
CLIENT_ID = "dcr_bench0000000000000000000"
REDIRECT = "http://127.0.0.1:9/callback"
VERIFIER = "bench-verifier-" + "x" * 40
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
BATCH = 500


def application() -> Application:
    app, _ = Application.objects.get_or_create(
        client_id=CLIENT_ID,
        defaults={
            "name": "Bench client",
            "client_type": Application.CLIENT_PUBLIC,
            "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
            "redirect_uris": REDIRECT,
            "registration_source": "dcr" if hasattr(Application, "registration_source") else None,
        },
    )
    return app


def users(n: int, out: Path) -> None:
    now = timezone.now()
    app = application()
    created = User.objects.bulk_create(
        [User(email=f"bench{i}@example.com", display_name=f"Bench User {i}", password="!") for i in range(n)],
        batch_size=BATCH,
    )
    keys, v1, mcp, rows = [], [], [], []
    for i, user in enumerate(created):
        secret = new_secret("sk_live_")
        keys.append(
            ApiKey(
                user=user,
                name="bench",
                scopes=["rates:read"],
                secret_digest=digest(secret),
                secret_last4=secret[-4:],
                api_version=CURRENT_VERSION,
                created=now,
                expires_at=now + timedelta(days=90),
                # Spread over the last minute: each key comes due for its once-a-minute last-use
                # stamp at its own moment, as keys in steady use do, not all at once mid-round.
                last_used_at=now - timedelta(seconds=60 * i / n),
            )
        )
        tokens = {"api_key": secret}
        for resource, bucket in (("v1", v1), ("mcp", mcp)):
            raw = new_secret("sat_")
            token = AccessToken(
                user=user,
                application=app,
                expires=now + timedelta(hours=1),
                scope="rates:read",
                resource=[f"{settings.BASE_URL}/{resource}"],
                family=uuid.uuid4(),
            )
            set_token_value(token, raw)
            bucket.append(token)
            tokens[resource] = raw
        rows.append(tokens)
    ApiKey.objects.bulk_create(keys, batch_size=BATCH)
    AccessToken.objects.bulk_create(v1 + mcp, batch_size=BATCH)
    (out / "credentials.json").write_text(json.dumps(rows))


def refresh(n: int, out: Path) -> None:
    now = timezone.now()
    app = application()
    user = User.objects.order_by("date_joined").first()
    tokens, lines = [], []
    for i in range(n):
        raw = new_secret("srt_")
        token = RefreshToken(
            user=user,
            application=app,
            token_family=uuid.uuid4(),
            resource=[f"{settings.BASE_URL}/v1"],
            scope="rates:read",
            expires=now + timedelta(days=14),
            family_expires=now + timedelta(days=30),
        )
        set_token_value(token, raw)
        tokens.append(token)
        lines.append(form_line(i, grant_type="refresh_token", refresh_token=raw, client_id=CLIENT_ID))
    RefreshToken.objects.bulk_create(tokens, batch_size=BATCH)
    (out / "refresh.lines").write_text("\n".join(lines) + "\n")


def codes(n: int, out: Path) -> None:
    now = timezone.now()
    app = application()
    user = User.objects.order_by("date_joined").first()
    grants, lines = [], []
    for i in range(n):
        code = new_secret("")
        grants.append(
            Grant(
                user=user,
                application=app,
                code=digest(code),
                expires=now + timedelta(seconds=60),
                redirect_uri=REDIRECT,
                scope="rates:read",
                code_challenge=CHALLENGE,
                code_challenge_method="S256",
                resource=[f"{settings.BASE_URL}/v1"],
            )
        )
        lines.append(
            form_line(
                i,
                grant_type="authorization_code",
                code=code,
                code_verifier=VERIFIER,
                client_id=CLIENT_ID,
                redirect_uri=REDIRECT,
                resource=f"{settings.BASE_URL}/v1",
            )
        )
    Grant.objects.bulk_create(grants, batch_size=BATCH)
    (out / "codes.lines").write_text("\n".join(lines) + "\n")


def form_line(i: int, **fields) -> str:
    from urllib.parse import urlencode

    # A distinct benchmarking-range source per request keeps the per-IP flood
    # guard (docs/spec.md 8.2) from dominating what is measured; see docs/performance.md.
    headers = f"Content-Type: application/x-www-form-urlencoded|X-Forwarded-For: {source_address(i)}"
    return f"POST\t/oauth/token\t{headers}\t{urlencode(fields)}"


def source_address(i: int) -> str:
    return f"198.18.{(i // 250) % 250}.{i % 250 + 1}"


if __name__ == "__main__":
    kind, count, outdir = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    outdir.mkdir(parents=True, exist_ok=True)
    {"users": users, "refresh": refresh, "codes": codes}[kind](count, outdir)
