"""The reference's examples of the contacts endpoints (apps/api_v1/examples.py)."""

from datetime import timedelta

from apps.api_v1.public import EXAMPLE_TIME, list_example, response_example

from .models import Contact, ContactPhoneNumber
from .selectors import LISTED_NUMBERS
from .serializers import ContactSerializer

CONTACT_ID = "ct_5Hs8Nq2WzL7cKx4RbT9mPv1D"


def _contact() -> Contact:
    contact = Contact(id=CONTACT_ID, livemode=True, created=EXAMPLE_TIME - timedelta(days=120), name="Ana López")
    setattr(
        contact,
        LISTED_NUMBERS,
        [
            ContactPhoneNumber(number="+34612345678", label="mobile", country="ES"),
            ContactPhoneNumber(number="+442071838750", label="work", country="GB"),
        ],
    )
    return contact


@response_example("list_contacts", query={"query": "ana", "limit": 5})
def contacts() -> dict:
    return list_example("/v1/contacts", ContactSerializer(_contact()).data)


@response_example("retrieve_contact")
def contact() -> dict:
    return ContactSerializer(_contact()).data
