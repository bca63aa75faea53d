"""The ``contact`` object (docs/design.md, Phase 2), for REST and MCP alike.

``to_representation`` builds the object directly; the declared fields document
it in the OpenAPI document.
"""

from rest_framework import serializers

from apps.core.timefmt import unix_seconds

from .models import Contact, PhoneLabel
from .selectors import LISTED_NUMBERS, contacts_by_ids


def listed_phone_numbers(contact: Contact):
    """The contact's numbers in its order: the list a selector read with it, else (a contact just
    written by the services) its prefetched numbers."""
    listed = getattr(contact, LISTED_NUMBERS, None)
    return listed if listed is not None else contact.phone_numbers.all()


class ContactPhoneNumberSerializer(serializers.Serializer):
    number = serializers.CharField(help_text="E.164, with +.")
    label = serializers.ChoiceField(choices=PhoneLabel.values)
    country = serializers.CharField(
        allow_null=True, help_text="ISO 3166-1 alpha-2 of the number; null for numbers of no country (+800...)."
    )


class ContactSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Contact id, prefix ct_.")
    object = serializers.ChoiceField(choices=["contact"])
    name = serializers.CharField()
    phone_numbers = ContactPhoneNumberSerializer(many=True, help_text="In the order the contact lists them.")
    created = serializers.IntegerField(help_text="Unix seconds.")
    livemode = serializers.BooleanField(help_text="false for test-mode contacts.")

    def to_representation(self, contact: Contact) -> dict:
        return {
            "id": contact.id,
            "object": "contact",
            "name": contact.name,
            "phone_numbers": [
                {"number": phone.number, "label": phone.label, "country": phone.country or None}
                for phone in listed_phone_numbers(contact)
            ],
            "created": unix_seconds(contact.created),
            "livemode": contact.livemode,
        }


def expanded_contacts(principal, ids: list[str]) -> dict[str, dict]:
    """The caller's contacts of ``ids`` as GET /v1/contacts/{id} writes them, by id (another app's
    ``expand[]=contact``, apps.api_v1.expansions)."""
    return {contact.id: ContactSerializer(contact).data for contact in contacts_by_ids(principal=principal, ids=ids)}
