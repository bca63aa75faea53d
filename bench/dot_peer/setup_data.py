"""Fixtures of the stock django-oauth-toolkit peer, as DOT itself leaves them after a consent.

    python -m bench.dot_peer.setup_data prepare          # its user and public PKCE client
    python -m bench.dot_peer.setup_data refresh N OUTDIR # N refresh tokens (each with its access token)
    python -m bench.dot_peer.setup_data codes N OUTDIR   # N codes (valid 60 s)

The request lines mirror the service's (bench/setup_data.py): the same client shape, the
same verifier, one refresh token or code per request.
"""

import os
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.dot_peer.settings")
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.utils import timezone  # noqa: E402
from oauth2_provider.models import (  # noqa: E402
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
    set_token_value,
)
from oauthlib.common import generate_token  # noqa: E402

from bench.token_lines import CHALLENGE, REDIRECT, VERIFIER, form_line  # noqa: E402

Application = get_application_model()
AccessToken = get_access_token_model()
RefreshToken = get_refresh_token_model()
Grant = get_grant_model()
User = get_user_model()
CLIENT_ID = "bench-dot-peer-public-client"
SCOPE = "rates:read"
BATCH = 1000
TOKEN_PATH = "/o/token/"


def prepare() -> None:
    user, _ = User.objects.get_or_create(username="bench", defaults={"email": "bench@example.com"})
    Application.objects.get_or_create(
        client_id=CLIENT_ID,
        defaults={
            "name": "Bench client",
            "user": user,
            "client_type": Application.CLIENT_PUBLIC,
            "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
            "redirect_uris": REDIRECT,
            "client_secret": "",
            "hash_client_secret": False,
            "algorithm": "",
        },
    )


def _client():
    return Application.objects.get(client_id=CLIENT_ID), User.objects.get(username="bench")


def refresh(n: int, out: Path) -> None:
    app, user = _client()
    now = timezone.now()
    access, refresh_tokens, lines = [], [], []
    for _ in range(n):
        token = AccessToken(user=user, application=app, expires=now + timedelta(hours=1), scope=SCOPE)
        set_token_value(token, generate_token())
        access.append(token)
    AccessToken.objects.bulk_create(access, batch_size=BATCH)
    for i, token in enumerate(access):
        raw = generate_token()
        row = RefreshToken(user=user, application=app, access_token=token, token_family=uuid.uuid4())
        set_token_value(row, raw)
        refresh_tokens.append(row)
        lines.append(form_line(TOKEN_PATH, i, grant_type="refresh_token", refresh_token=raw, client_id=CLIENT_ID))
    RefreshToken.objects.bulk_create(refresh_tokens, batch_size=BATCH)
    (out / "refresh.lines").write_text("\n".join(lines) + "\n")


def codes(n: int, out: Path) -> None:
    app, user = _client()
    now = timezone.now()
    grants, lines = [], []
    for i in range(n):
        code = generate_token()
        grants.append(
            Grant(
                user=user,
                application=app,
                code=code,
                expires=now + timedelta(seconds=60),
                redirect_uri=REDIRECT,
                scope=SCOPE,
                code_challenge=CHALLENGE,
                code_challenge_method="S256",
            )
        )
        lines.append(
            form_line(
                TOKEN_PATH,
                i,
                grant_type="authorization_code",
                code=code,
                code_verifier=VERIFIER,
                client_id=CLIENT_ID,
                redirect_uri=REDIRECT,
            )
        )
    Grant.objects.bulk_create(grants, batch_size=BATCH)
    (out / "codes.lines").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "prepare":
        prepare()
    else:
        outdir = Path(args[1])
        outdir.mkdir(parents=True, exist_ok=True)
        {"refresh": refresh, "codes": codes}[command](int(args[0]), outdir)
