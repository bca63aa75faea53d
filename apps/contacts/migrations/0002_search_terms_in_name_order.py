import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery

from apps.core.pattern_indexes import drop_pattern_indexes


def copy_sort_names(apps, schema_editor):
    Contact = apps.get_model("contacts", "Contact")
    ContactSearchTerm = apps.get_model("contacts", "ContactSearchTerm")
    ContactSearchTerm.objects.update(
        sort_name=Subquery(Contact.objects.filter(pk=OuterRef("contact_id")).values("sort_name")[:1])
    )


class Migration(migrations.Migration):
    """A search term carries its contact's sort key, so that a search yields its matches in name
    order from the term index alone; the contact's own index on terms serves cascades and the
    query's other words. Ids keep no pattern index (apps/core/pattern_indexes.py)."""

    dependencies = [
        ("contacts", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="contactsearchterm",
            name="sort_name",
            field=models.CharField(default="", max_length=200),
            preserve_default=False,
        ),
        migrations.RunPython(copy_sort_names, migrations.RunPython.noop),
        migrations.RemoveIndex(model_name="contactsearchterm", name="contacts_term_prefix_idx"),
        migrations.AlterField(
            model_name="contactsearchterm",
            name="contact",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="contacts.contact",
            ),
        ),
        migrations.AddIndex(
            model_name="contactsearchterm",
            index=models.Index(
                fields=["user", "livemode", "kind", "term"],
                include=["sort_name", "contact"],
                name="contacts_term_prefix_idx",
                opclasses=["", "", "", "varchar_pattern_ops"],
            ),
        ),
        migrations.AddIndex(
            model_name="contactsearchterm",
            index=models.Index(
                fields=["contact", "kind", "term"],
                name="contacts_term_contact_idx",
                opclasses=["", "", "varchar_pattern_ops"],
            ),
        ),
        drop_pattern_indexes(**{"contacts.Contact": ("id",), "contacts.ContactPhoneNumber": ("contact",)}),
    ]
