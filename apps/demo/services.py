"""One account's demo data in both modes: each app's ``demo.seed``, in the order their data depends on.

The only module that combines the resource apps. Every step replaces that
app's rows of the account in that mode, so seeding again gives the same data
set again (with times ending at the new ``now``), never a second copy. Each
step draws from its own random stream, so adding a step leaves the others'
data as it was.
"""

import random
from datetime import datetime

from django.db import transaction

from apps.billing import demo as billing_demo
from apps.calls import demo as calls_demo
from apps.contacts import demo as contacts_demo
from apps.messages import demo as messages_demo
from apps.numbers import demo as numbers_demo
from apps.rates.selectors import rate_for_number


def demo_seed(*, user, now: datetime, seed: int = 1) -> None:
    """Both modes in one transaction: a failure leaves the account's earlier data as it was."""
    with transaction.atomic():
        for livemode in (True, False):
            demo_seed_mode(user=user, livemode=livemode, now=now, seed=seed)


def demo_seed_mode(*, user, livemode: bool, now: datetime, seed: int) -> None:
    def rng(app: str) -> random.Random:
        return random.Random(f"{seed}:{'live' if livemode else 'test'}:{app}")  # noqa: S311 (demo data)

    # 1. Numbers and caller IDs; their monthly rentals are charges.
    number_charges = numbers_demo.seed(user=user, livemode=livemode, rng=rng("numbers"), now=now)

    # 2. Contacts, whom calls are made to and from.
    contacts = contacts_demo.seed(user=user, livemode=livemode, rng=rng("contacts"), now=now)

    # 3. Calls and their transcripts, priced from the rate deck; completed calls are charges.
    call_charges = calls_demo.seed(
        user=user, livemode=livemode, rng=rng("calls"), now=now, contacts=contacts, rate_for=rate_for_number
    )

    # 4. The ledger: top-ups, those charges, a refund, an adjustment; and the balance.
    billing_demo.seed(
        user=user, livemode=livemode, rng=rng("billing"), now=now, charges=[*number_charges, *call_charges]
    )

    # 5. Messages received on the first SMS-capable number, codes among them.
    messages_demo.seed(user=user, livemode=livemode, rng=rng("messages"), now=now)
