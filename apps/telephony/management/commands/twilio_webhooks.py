"""``manage.py twilio_webhooks``: the addresses to set in the Twilio console, from ``BASE_URL``.

Only inbound SMS needs one set by hand (each number's "A message comes in" webhook): the
addresses of a call's callbacks travel with each call the service places.
"""

from django.core.management.base import BaseCommand

from apps.telephony.carriers.twilio import conf
from apps.telephony.carriers.twilio.callbacks import DIAL, GATHER, LEG, SMS, STATUS


class Command(BaseCommand):
    help = "Print the webhook addresses of the Twilio carrier (docs/operations.md, 'A real carrier')."

    def handle(self, *args, **options):
        self.stdout.write("Set in the Twilio console, on each number whose messages the service receives:")
        self.stdout.write(f"  Messaging > A message comes in (HTTP POST): {conf.callback_url(SMS)}")
        self.stdout.write("Sent with each call the service places (nothing to set):")
        for what in (STATUS, GATHER, LEG, DIAL):
            self.stdout.write(f"  {conf.callback_url(what)}?call=...")
        if not conf.callback_url(SMS).startswith("https://"):
            self.stdout.write(self.style.WARNING("BASE_URL is not https: Twilio needs a public https address."))
