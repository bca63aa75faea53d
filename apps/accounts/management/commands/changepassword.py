"""Django's ``changepassword``, plus the revocation every new password brings (docs/spec.md 3.3)."""

import getpass

from django.contrib.auth import get_user_model
from django.contrib.auth.management.commands import changepassword
from django.db import transaction

from apps.accounts.security import user_credentials_revoke_all
from apps.audit.models import EventType


class Command(changepassword.Command):
    def handle(self, *args, **options):
        username = options["username"] or getpass.getuser()
        with transaction.atomic(using=options["database"]):
            result = super().handle(*args, **options)
            User = get_user_model()
            user = User._default_manager.db_manager(options["database"]).get(**{User.USERNAME_FIELD: username})
            user_credentials_revoke_all(user=user, event_type=EventType.PASSWORD_CHANGED)
        self.stdout.write("Every OAuth token and API key of this user was revoked.")
        return result
