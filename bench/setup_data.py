"""Bench fixtures: many users, each with an API key and OAuth tokens, and the phase 2 rows, written in bulk.

Spreading requests over many principals keeps the credential cache and the limiter's keys
as many as a real load has; single-use credentials (refresh tokens, codes) are minted one
per request. Prints nothing secret to the terminal: secrets go to files under the bench
work directory, and to the ``bench_fixture`` table of the bench database itself, so that a
database kept between runs (bench/databases.py) carries its own credentials.

    python -m bench.setup_data build USERS SCALE    # users, keys, tokens and the phase 2 rows
    python -m bench.setup_data renew OUTDIR         # credentials of a kept database, made current
    python -m bench.setup_data refresh N OUTDIR     # N refresh tokens, one family each
    python -m bench.setup_data codes N OUTDIR       # N codes (valid 60 s), one family each
"""

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
from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402
from oauth2_provider.models import set_token_value  # noqa: E402

from apps.api_v1.versions import CURRENT_VERSION  # noqa: E402
from apps.apikeys.models import ApiKey  # noqa: E402
from apps.core.ids import digest, new_secret  # noqa: E402
from apps.credentials.scopes import READ_ONLY_STARTER_SET  # noqa: E402
from apps.oauth.models import AccessToken, Application, Grant, GrantFamily, RefreshToken  # noqa: E402
from bench import dataset  # noqa: E402
from bench.token_lines import CHALLENGE, REDIRECT, VERIFIER, form_line  # noqa: E402

User = get_user_model()
CLIENT_ID = "dcr_bench0000000000000000000"
# The starter set and the SMS inbox's two scopes: the message list reads a heavy account's month of
# messages (messages:history lifts the 60-minute window, so a kept data set stays readable).
SCOPES = [*READ_ONLY_STARTER_SET, "messages:read", "messages:history"]
SCOPE = " ".join(SCOPES)
BATCH = 1000
FIXTURE_TABLE = "bench_fixture"
TOKEN_PATH = "/oauth/token"


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


def users(n: int) -> tuple[list[str], list[dict]]:
    """``n`` users, each with an API key (the read-only starter scopes) and an access token for
    /v1 and one for /mcp; their ids in creation order and their secrets."""
    now = timezone.now()
    app = application()
    created = User.objects.bulk_create(
        [User(email=f"bench{i}@example.com", display_name=f"Bench User {i}", password="!") for i in range(n)],
        batch_size=BATCH,
    )
    keys, tokens, families, rows = [], [], [], []
    for user in created:
        secret = new_secret("sk_live_")
        keys.append(
            ApiKey(
                user=user,
                name="bench",
                scopes=SCOPES,
                secret_digest=digest(secret),
                secret_last4=secret[-4:],
                api_version=CURRENT_VERSION,
                created=now,
                expires_at=now + timedelta(days=90),
            )
        )
        secrets = {"api_key": secret}
        for resource in ("v1", "mcp"):
            raw, family = new_secret("sat_"), uuid.uuid4()
            token = AccessToken(
                user=user,
                application=app,
                expires=now + timedelta(hours=1),
                scope=SCOPE,
                resource=[f"{settings.BASE_URL}/{resource}"],
                family=family,
            )
            set_token_value(token, raw)
            tokens.append(token)
            families.append(GrantFamily(family=family, user=user, application=app, redirect_uri=REDIRECT))
            secrets[resource] = raw
        rows.append(secrets)
    ApiKey.objects.bulk_create(keys, batch_size=BATCH)
    GrantFamily.objects.bulk_create(families, batch_size=BATCH)
    AccessToken.objects.bulk_create(tokens, batch_size=BATCH)
    return [user.pk for user in created], rows


def build(n: int, scale: float) -> None:
    """Everything a run reads, into an empty migrated database; the fixture records the secrets."""
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit = off")
    ids, secrets = users(n)
    heavy = ids[: dataset.HEAVY_ACCOUNTS]
    now = timezone.now()
    size = dataset.sizes(scale)
    start = now - timedelta(minutes=5 * (max(size["ledger"], size["calls"]) + 1))
    lines = dataset.dataset_build(heavy=heavy, scale=scale, start=start, created=start, now=now)
    fixture = {"users": n, "scale": scale, "credentials": secrets, "heavy": list(range(len(heavy))), **lines}
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {FIXTURE_TABLE} (name text PRIMARY KEY, body text NOT NULL)")
        cursor.execute(f"INSERT INTO {FIXTURE_TABLE} VALUES ('fixture', %s)", [json.dumps(fixture)])
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def renew(out: Path) -> None:
    """Make a kept database's credentials current: access tokens and keys unexpired, and every key's
    last-use stamp spread over the last minute, so each comes due for its once-a-minute stamp at its
    own moment, as keys in steady use do, not all at once mid-round."""
    keys, tokens = ApiKey._meta, AccessToken._meta
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {keys.db_table} SET {keys.get_field('expires_at').column} = now() + interval '90 days', "
            f"{keys.get_field('last_used_at').column} = now() - random() * interval '60 seconds'"
        )
        cursor.execute(f"UPDATE {tokens.db_table} SET {tokens.get_field('expires').column} = now() + interval '1 hour'")
        cursor.execute(f"SELECT body FROM {FIXTURE_TABLE} WHERE name = 'fixture'")
        (body,) = cursor.fetchone()
    (out / "fixture.json").write_text(body)


def refresh(n: int, out: Path) -> None:
    now = timezone.now()
    app = application()
    user = User.objects.order_by("date_joined").first()
    tokens, families, lines = [], [], []
    for i in range(n):
        raw, family = new_secret("srt_"), uuid.uuid4()
        token = RefreshToken(
            user=user,
            application=app,
            token_family=family,
            resource=[f"{settings.BASE_URL}/v1"],
            scope="rates:read",
            expires=now + timedelta(days=14),
            family_expires=now + timedelta(days=30),
        )
        set_token_value(token, raw)
        tokens.append(token)
        families.append(GrantFamily(family=family, user=user, application=app, redirect_uri=REDIRECT))
        lines.append(form_line(TOKEN_PATH, i, grant_type="refresh_token", refresh_token=raw, client_id=CLIENT_ID))
    GrantFamily.objects.bulk_create(families, batch_size=BATCH)
    RefreshToken.objects.bulk_create(tokens, batch_size=BATCH)
    (out / "refresh.lines").write_text("\n".join(lines) + "\n")


def codes(n: int, out: Path) -> None:
    now = timezone.now()
    app = application()
    user = User.objects.order_by("date_joined").first()
    grants, families, lines = [], [], []
    for i in range(n):
        code, family = new_secret(""), uuid.uuid4()
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
                family=family,
            )
        )
        families.append(GrantFamily(family=family, user=user, application=app, redirect_uri=REDIRECT))
        lines.append(
            form_line(
                TOKEN_PATH,
                i,
                grant_type="authorization_code",
                code=code,
                code_verifier=VERIFIER,
                client_id=CLIENT_ID,
                redirect_uri=REDIRECT,
                resource=f"{settings.BASE_URL}/v1",
            )
        )
    GrantFamily.objects.bulk_create(families, batch_size=BATCH)
    Grant.objects.bulk_create(grants, batch_size=BATCH)
    (out / "codes.lines").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "build":
        build(int(args[0]), float(args[1]))
    elif command == "renew":
        renew(Path(args[0]))
    else:
        outdir = Path(args[1])
        outdir.mkdir(parents=True, exist_ok=True)
        {"refresh": refresh, "codes": codes}[command](int(args[0]), outdir)
