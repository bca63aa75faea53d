"""Contacts' numbers stored as written before numbers were made canonical become their canonical
E.164 (apps.core.phones), and a search by the canonical digits finds them (the terms of the form
as written stay: a search as the user typed it still finds the contact)."""

from django.db import migrations

from apps.core.phones import canonicalize_stored

DIGITS = "d"


def forwards(apps, schema_editor):
    phone_numbers = apps.get_model("contacts", "ContactPhoneNumber")
    terms = apps.get_model("contacts", "ContactSearchTerm")
    rewritten = canonicalize_stored(phone_numbers, "number")
    for number in set(rewritten.values()):
        digits = number.lstrip("+")
        for phone in phone_numbers.objects.filter(number=number).select_related("contact"):
            contact = phone.contact
            have = set(terms.objects.filter(contact=contact, kind=DIGITS).values_list("term", flat=True))
            terms.objects.bulk_create(
                terms(
                    contact=contact,
                    user_id=contact.user_id,
                    livemode=contact.livemode,
                    kind=DIGITS,
                    term=digits[i:],
                    sort_name=contact.sort_name,
                )
                for i in range(len(digits))
                if digits[i:] not in have
            )


class Migration(migrations.Migration):
    dependencies = [("contacts", "0002_search_terms_in_name_order")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop, elidable=True)]
