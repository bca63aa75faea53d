import getpass

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from apps.accounts.services import UserExists, user_create


class Command(BaseCommand):
    help = "Create a user account (operators and scripts; there is no sign-up screen)."

    def add_arguments(self, parser):
        parser.add_argument("--email", required=True)
        parser.add_argument("--display-name", required=True)
        parser.add_argument("--password", help="prompted for when omitted")
        parser.add_argument("--if-missing", action="store_true", help="succeed quietly if the email exists")

    def handle(self, *args, email, display_name, password, if_missing, **options):
        if password is None:
            if not options.get("interactive", True) or not self.stdin_is_tty():
                raise CommandError("--password is required when not run interactively")
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                raise CommandError("passwords do not match")
        try:
            user = user_create(email=email, display_name=display_name, password=password)
        except UserExists as exc:
            if if_missing:
                self.stdout.write(f"user {email} already exists")
                return
            raise CommandError(str(exc)) from exc
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(f"created {user.id} {user.email}")

    @staticmethod
    def stdin_is_tty() -> bool:
        import sys

        return sys.stdin.isatty()
