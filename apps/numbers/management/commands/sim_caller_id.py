"""Give an account a verified caller ID among the simulator's magic numbers, as its default, so that a
callback call rings a phone that does not answer, never presses 1, or declines (/docs/calls)."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from apps.core.phones import canonical, readable
from apps.telephony.public import SIMULATED, carrier_for, simulator

from ...models import CallerId
from ...services import caller_id_create, caller_id_make_default


def magic_numbers() -> dict[str, str]:
    """The simulator's numbers for your own phone, with what each does."""
    return {behaviour.number: behaviour.says for behaviour in simulator.YOUR_NUMBERS}


class Command(BaseCommand):
    help = (
        "Make one of the simulator's magic numbers for your own phone the account's default caller ID (verified "
        "here; the number a callback call rings first), or make another of its caller IDs the default again."
    )

    def add_arguments(self, parser):
        known = ", ".join(f"{readable(n)} ({says})" for n, says in magic_numbers().items())
        parser.add_argument("--email", required=True, help="the account")
        parser.add_argument("--number", required=True, help=f"E.164: {known}; or one of the account's caller IDs")
        parser.add_argument("--test", action="store_true", help="the caller ID of test mode (live mode otherwise)")

    def handle(self, *args, email, number, test, **options):
        user = get_user_model().objects.filter(email__iexact=email.strip()).first()
        if user is None:
            raise CommandError(f"No account with the email {email}.")
        try:
            e164 = canonical(number, typed=True)
        except ValidationError as error:
            raise CommandError(f"--number: {error.messages[0]}") from None
        livemode = not test
        if livemode and carrier_for(livemode=True).name != SIMULATED:
            raise CommandError("Live-mode calls go through a real carrier on this service: use --test.")
        rows = CallerId.objects.filter(user=user, livemode=livemode)
        previous = rows.filter(is_default=True).first()
        row = rows.filter(number=e164).order_by("created", "id").first()
        says = magic_numbers().get(e164)
        if row is None and says is None:
            known = ", ".join(readable(n) for n in magic_numbers())
            raise CommandError(f"{readable(e164)} is neither one of the simulator's numbers ({known}) nor a caller ID "
                               f"of this account in {'live' if livemode else 'test'} mode.")  # fmt: skip
        if row is None:
            row = caller_id_create(user=user, livemode=livemode, number=e164, default=True)
        else:
            caller_id_make_default(caller_id=row)
        mode = "live" if livemode else "test"
        what = f": on the simulator it {says}" if says else ""
        self.stdout.write(f"{readable(e164)} ({row.id}) is the default caller ID of {user.email} in {mode} mode{what}.")
        if previous is not None and previous.pk != row.pk:
            back = f"manage.py sim_caller_id --email {user.email} --number {previous.number}{' --test' if test else ''}"
            self.stdout.write(f"The previous default, {readable(previous.number)}, stays verified; back to it: {back}")
