from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"


class AdminConfig(admin_apps.AdminConfig):
    """Django's admin, whose default site throttles sign-in like /login (apps/accounts/signin_views.py)."""

    default = False  # named in INSTALLED_APPS in place of django.contrib.admin; AccountsConfig is this app's
    default_site = "apps.accounts.signin_views.AdminSite"
