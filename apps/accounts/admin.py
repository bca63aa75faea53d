from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm
from django.db import transaction

from apps.audit.models import EventType

from .models import User
from .security import user_credentials_revoke_all


class RevokingPasswordChangeForm(AdminPasswordChangeForm):
    """Staff setting a password revokes every token and key too (docs/spec.md 3.3), in one transaction."""

    def save(self, commit=True):
        if not commit:
            return super().save(commit=False)
        with transaction.atomic():
            user = super().save(commit=True)
            user_credentials_revoke_all(user=user, event_type=EventType.PASSWORD_CHANGED)
        return user


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    change_password_form = RevokingPasswordChangeForm
    ordering = ("email",)
    list_display = ("email", "display_name", "id", "is_staff", "is_active")
    search_fields = ("email", "display_name", "id")
    readonly_fields = ("id", "date_joined", "last_login")
    fieldsets = (
        (None, {"fields": ("id", "email", "password")}),
        ("Profile", {"fields": ("display_name",)}),
        ("Permissions", {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")}),
        ("Dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "display_name", "password1", "password2")}),)
