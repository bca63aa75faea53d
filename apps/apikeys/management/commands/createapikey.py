from datetime import UTC, datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.apikeys.models import ApiKey
from apps.apikeys.services import DEFAULT_EXPIRY_DAYS, MAX_EXPIRY_DAYS, apikey_create
from apps.core.errors import ApiError
from apps.credentials.scopes import ALL_SCOPES, READ_ONLY_STARTER_SET, SENSITIVE_SCOPES

NAME_MAX = ApiKey._meta.get_field("name").max_length


def default_name(*, scopes: list[str], test: bool, now: datetime) -> str:
    """A name that tells one command-line key from another on the API keys page: where it was
    made, when (to the second), its mode and its scopes, cut to the longest name a key takes."""
    what = "read-only starter set" if scopes == list(READ_ONLY_STARTER_SET) else " ".join(scopes)
    at = now.astimezone(UTC)
    name = f"CLI {at.day} {at:%b %Y, %H:%M:%S} UTC{' test' if test else ''}: {what}"
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


class Command(BaseCommand):
    help = (
        "Create a personal API key for a user and print its secret once (on stdout; the key's id on stderr). "
        f"Without --scopes the key gets the read-only starter set ({' '.join(READ_ONLY_STARTER_SET)}), "
        "the same default as the API keys page."
    )

    def add_arguments(self, parser):
        parser.add_argument("--email", required=True, help="the account the key acts for")
        parser.add_argument(
            "--name",
            default=None,
            help=(
                "the key's name on the API keys page; default: made on the command line, when, and what it "
                'may do, e.g. "CLI 28 Nov 2026, 14:03:07 UTC: read-only starter set"'
            ),
        )
        parser.add_argument(
            "--scopes",
            default=" ".join(READ_ONLY_STARTER_SET),
            help=(f"space-separated scopes; default: the read-only starter set. Known scopes: {' '.join(ALL_SCOPES)}"),
        )
        parser.add_argument(
            "--expires-in-days",
            type=int,
            default=None,
            help=f"1 to {MAX_EXPIRY_DAYS}; default {DEFAULT_EXPIRY_DAYS}",
        )
        parser.add_argument("--ip-allowlist", default="", help="comma-separated addresses or CIDR ranges")
        parser.add_argument("--test", action="store_true", help="make an sk_test_ key (test-mode data only)")
        parser.add_argument(
            "--choose-with",
            default="--scopes ",
            help="how the caller names other scopes, for the hint on stderr (make apikey passes SCOPES=)",
        )

    def handle(self, *args, **o):
        user = get_user_model().objects.filter(email__iexact=o["email"]).first()
        if user is None:
            raise CommandError(f"no user with email {o['email']}")
        try:
            key, secret = apikey_create(
                user=user,
                name=o["name"] or default_name(scopes=o["scopes"].split(), test=o["test"], now=timezone.now()),
                scopes=o["scopes"].split(),
                expires_in_days=o["expires_in_days"],
                ip_allowlist=[e.strip() for e in o["ip_allowlist"].split(",") if e.strip()],
                livemode=not o["test"],
            )
        except ApiError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from exc
        # stderr, so that KEY=$(make -s apikey) captures the secret alone.
        self.stderr.write(f"created {key.id} with scopes {' '.join(key.scopes)}; the secret below is shown once")
        # The example adds a scope the key lacks, a non-sensitive one when there is one left.
        others = sorted((s for s in ALL_SCOPES if s not in key.scopes), key=lambda s: s in SENSITIVE_SCOPES)
        if others:
            example = " ".join([*key.scopes, others[0]])
            self.stderr.write(
                f'other scopes: {o["choose_with"]}"{example}" (space-separated); known scopes: {" ".join(ALL_SCOPES)}'
            )
        self.stdout.write(secret)
