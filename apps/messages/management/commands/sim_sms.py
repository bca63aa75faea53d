"""Deliver a simulated SMS to one of an account's numbers, as the carrier would."""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.core.phones import canonical, readable
from apps.messages.apis import _SENDER
from apps.messages.models import MAX_BODY, MAX_SENDER
from apps.messages.serializers import message_data
from apps.messages.services import message_arrive
from apps.numbers.selectors import numbers_in_mode
from apps.telephony.public import simulator


class Command(BaseCommand):
    help = "Deliver a simulated SMS to one of the account's numbers (live mode unless --test)."

    def add_arguments(self, parser):
        parser.add_argument("--email", required=True, help="the account")
        parser.add_argument("--number", required=True, help="the account's number that receives it, E.164")
        parser.add_argument("--from", dest="sender", required=True, help="the sender: E.164 or an alphanumeric id")
        parser.add_argument(
            "--body",
            help=f"the text, 1 to {MAX_BODY} characters; none from the simulator's code sender "
            f"({readable(simulator.CODE_SENDER)}), which always texts its demo code",
        )
        parser.add_argument("--ago", type=int, default=0, help="received this many seconds ago (default: now)")
        parser.add_argument("--test", action="store_true", help="the number of test mode")

    def handle(self, *args, email, number, sender, body, ago, test, **options):
        user = get_user_model().objects.filter(email__iexact=email.strip()).first()
        if user is None:
            raise CommandError(f"No account with the email {email}.")
        try:
            e164 = canonical(number)
        except ValidationError as error:
            raise CommandError(f"--number: {error.messages[0]}") from None
        if not _SENDER.fullmatch(sender) or len(sender) > MAX_SENDER:  # the pattern takes "+" and 16 more
            raise CommandError("--from must be a number in E.164 form or an alphanumeric sender (at most 16).")
        code_sender = sender == simulator.CODE_SENDER
        if body is None and code_sender:
            body = simulator.CODE_BODY
        if body is None:
            raise CommandError(
                f"--body is required (only the simulator's code sender, {readable(simulator.CODE_SENDER)}, "
                "texts without one)."
            )
        if not body or len(body) > MAX_BODY:
            raise CommandError(f"--body must be 1 to {MAX_BODY} characters.")
        if ago < 0:
            raise CommandError("--ago is a number of seconds in the past, 0 or more.")
        numbers = numbers_in_mode(user_id=user.pk, livemode=not test)
        row = numbers.filter(number=e164).order_by("created", "id").first()
        if row is None:
            raise CommandError(f"{e164} is not one of this account's {'test' if test else 'live'} numbers.")
        if not row.sms:
            raise CommandError(f"{e164} does not receive SMS.")
        message = message_arrive(number=row, sender=sender, body=body, at=timezone.now() - timedelta(seconds=ago))
        # The code itself stays out of the output, which may end up in a log.
        found = " (it carries a one-time code)" if message_data(message)["one_time_code"] else ""
        self.stdout.write(f"Delivered {message.id} to {e164}{found}.")
        if message.body != body:
            # The carrier's text wins (the simulator's code sender always texts its code): said, never silent.
            if code_sender:
                self.stdout.write(
                    f"Its text is the simulator's demo code, not the --body given: {readable(sender)} is the "
                    "simulator's code sender, which always texts that code (/docs/calls); send from another number "
                    "for your own text."
                )
            else:
                self.stdout.write("Its text is the carrier's, not the --body given.")
