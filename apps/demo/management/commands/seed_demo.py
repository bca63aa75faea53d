from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.billing.models import Balance, BalanceTransaction
from apps.core.money import display
from apps.demo.services import demo_seed


class Command(BaseCommand):
    help = (
        "Give an existing account a realistic demo data set in live and test mode (months of ledger rows, "
        "and the other apps' demo data). Running it again replaces that account's demo data; it never duplicates."
    )

    def add_arguments(self, parser):
        parser.add_argument("--email", required=True, help="the account (create it first with createuser)")
        parser.add_argument("--seed", type=int, default=1, help="the random seed (default 1): same seed, same data")

    def handle(self, *args, email, seed, **options):
        user = get_user_model().objects.filter(email__iexact=email.strip()).first()
        if user is None:
            raise CommandError(
                f"No account with email {email}. Create it first: "
                f"manage.py createuser --email {email} --display-name NAME"
            )
        # Outbound calls are priced from the rate deck: on a fresh database (no make run), the
        # demo deck comes first, or only inbound calls could be made.
        call_command("import_rates", "--demo", "--if-empty", stdout=self.stdout)
        demo_seed(user=user, now=timezone.now(), seed=seed)
        for livemode in (True, False):
            balance = Balance.objects.filter(user=user, livemode=livemode).first()
            rows = BalanceTransaction.objects.filter(user=user, livemode=livemode).count()
            amount = display(balance.amount, balance.currency) if balance else "0"
            mode = "live" if livemode else "test"
            self.stdout.write(f"{user.email} {mode}: {rows} balance transactions, balance {amount}")
