from django.core.management.base import BaseCommand
from django.db import transaction

from apps.webhooks import secrets
from apps.webhooks.models import WebhookEndpoint


class Command(BaseCommand):
    help = (
        "Re-encrypt every webhook signing secret under the first key of WEBHOOK_SECRET_KEYS, "
        "after which the other keys may be removed from the setting."
    )

    def handle(self, *args, **options):
        count = 0
        for pk in WebhookEndpoint.objects.values_list("pk", flat=True).iterator():
            with transaction.atomic():
                endpoint = WebhookEndpoint.objects.select_for_update().filter(pk=pk).first()
                if endpoint is None:
                    continue
                endpoint.secret_encrypted = secrets.reencrypt(endpoint.secret_encrypted)
                if endpoint.previous_secret_encrypted:
                    endpoint.previous_secret_encrypted = secrets.reencrypt(endpoint.previous_secret_encrypted)
                endpoint.save(update_fields=["secret_encrypted", "previous_secret_encrypted"])
                count += 1
        self.stdout.write(f"Re-encrypted the secrets of {count} webhook endpoints under the first key.")
