"""manage.py import_rates FILE.csv | --demo: replace the rate deck (docs/decisions/rates.md)."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

import apps.rates
from apps.rates.deck import DeckError, rate_deck_read
from apps.rates.models import Rate
from apps.rates.services import rate_deck_replace

# Written by apps/rates/demo_deck.py; its prices are in usd.
DEMO_DECK = Path(apps.rates.__file__).with_name("demo_deck.csv")
DEMO_CURRENCY = "usd"


class Command(BaseCommand):
    help = (
        "Replace the whole rate deck with a CSV file (header: prefix,country,label,currency,per_minute,"
        "first_seconds,next_seconds). A file with any bad row is refused and the current deck stays."
    )

    def add_arguments(self, parser):
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("file", nargs="?", help="The deck, UTF-8 CSV.")
        source.add_argument(
            "--demo",
            action="store_true",
            help="Load the demo deck shipped with the code (every country, INVENTED prices, for trying things out).",
        )
        parser.add_argument(
            "--if-empty", action="store_true", help="Do nothing when a deck is already loaded (for start-up scripts)."
        )

    def handle(self, *args, file=None, demo=False, if_empty=False, **options):
        if if_empty and Rate.objects.exists():
            self.stdout.write("A rate deck is already loaded; nothing imported.")
            return
        path = DEMO_DECK if demo else Path(file)
        currency = settings.SERVICE_CURRENCY.lower()
        try:
            with path.open(encoding="utf-8-sig", newline="") as lines:
                rates = rate_deck_read(lines=lines, currency=DEMO_CURRENCY if demo else currency)
        except OSError as error:
            raise CommandError(f"{path}: {error.strerror or error}") from None
        except DeckError as error:
            raise CommandError(f"{path} refused, the current deck is unchanged:\n" + str(error)) from None
        if demo:
            # Invented prices: read as amounts in whatever currency this service bills in.
            for rate in rates:
                rate.currency = currency
        count = rate_deck_replace(rates=rates)
        countries = len({rate.country for rate in rates})
        note = " (demo deck: the prices are invented)" if demo else ""
        self.stdout.write(f"Imported {count} rates for {countries} countries{note}.")
