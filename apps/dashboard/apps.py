from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The signed-in pages (home, sharing, billing, connected apps): the top floor, reading the
    apps below it through their selectors and public modules; nothing imports it."""

    name = "apps.dashboard"
    label = "dashboard"
