"""manage.py import_rates FILE.csv | --demo: replace the rate deck (docs/decisions/rates.md)."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

import apps.rates
from apps.rates.deck import DeckError, rate_deck_check, rate_deck_rates
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
        deck_currency = DEMO_CURRENCY if demo else currency
        countries = set()

        def rates(lines):
            for rate in rate_deck_rates(lines=lines, currency=deck_currency):
                if demo:
                    # Invented prices: read as amounts in whatever currency this service bills in.
                    rate.currency = currency
                countries.add(rate.country)
                yield rate

        try:
            # Read twice, row by row: checked whole first (a refused file costs no database work),
            # then written in batches; the file is never held in memory.
            with path.open(encoding="utf-8-sig", newline="") as lines:
                rate_deck_check(lines=lines, currency=deck_currency)
                lines.seek(0)
                count = rate_deck_replace(rates=rates(lines))
        except OSError as error:
            raise CommandError(f"{path}: {error.strerror or error}") from None
        except DeckError as error:
            raise CommandError(f"{path} refused, the current deck is unchanged:\n" + str(error)) from None
        note = " (demo deck: the prices are invented)" if demo else ""
        self.stdout.write(f"Imported {count} rates for {len(countries)} countries{note}.")
