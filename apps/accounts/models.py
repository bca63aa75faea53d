from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from apps.core.ids import id_default

new_user_id = id_default("usr_", "new_user_id")


class UserManager(BaseUserManager):
    use_in_migrations = True

    def get_by_natural_key(self, username):
        return self.get(email__iexact=username)

    def create_user(self, email: str, password: str | None = None, **fields):
        if not email:
            raise ValueError("email is required")
        user = self.model(email=self.normalize_email(email).strip(), **fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **fields):
        fields.setdefault("is_staff", True)
        fields.setdefault("is_superuser", True)
        return self.create_user(email, password, **fields)


class User(AbstractBaseUser, PermissionsMixin):
    id = models.CharField(primary_key=True, max_length=32, default=new_user_id, editable=False)
    email = models.EmailField(max_length=254, unique=True)
    display_name = models.CharField(max_length=100)
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False)
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = ["display_name"]

    class Meta:
        constraints = [models.UniqueConstraint(Lower("email"), name="accounts_user_email_ci_unique")]

    def __str__(self):
        return self.email

    def get_full_name(self):
        return self.display_name

    def get_short_name(self):
        return self.display_name


class SharingSettings(models.Model):
    """The two sharing switches of docs/spec.md 5.13, off by default.

    Stored and shown on /settings/sharing. ``call_summaries`` gates transcripts
    (``expand[]=transcript`` and ``svc_get_call_summary``); ``message_reading`` is
    the account-wide consent for the planned message reads, beside each number's
    own ``messages_opt_in``.
    """

    user = models.OneToOneField(User, primary_key=True, on_delete=models.CASCADE, related_name="sharing_settings")
    call_summaries = models.BooleanField(default=False)
    message_reading = models.BooleanField(default=False)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"sharing settings of {self.user_id}"
