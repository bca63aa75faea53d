"""The signed-in pages (``{APP_URL}/``, ``/billing``, ``/settings/sharing``, ``/settings/connected-apps``,
``/settings/webhooks``); included from config/urls.py."""

from django.urls import path

from . import billing_views, confirm_views, connected_apps_views, sharing_views, views, webhooks_views

urlpatterns = [
    path("", views.home, name="home"),
    path("billing", billing_views.billing_page, name="billing-page"),
    path("billing/test-top-up", billing_views.test_top_up_form, name="billing-test-top-up"),
    path("settings/sharing", sharing_views.sharing_page, name="sharing-page"),
    path("settings/connected-apps", connected_apps_views.connected_apps_page, name="connected-apps-page"),
    path("settings/connected-apps/disconnect", connected_apps_views.disconnect_form, name="connected-apps-disconnect"),
    # What the user decides for a connected app (apps/safeguards): the confirmation page a refusal
    # links to, and the Connected apps form that changes an app's rules.
    path("confirm/<str:token>", confirm_views.confirmation_page, name="safeguards-confirm"),
    path("settings/connected-apps/rules", confirm_views.rules_form, name="connected-apps-rules"),
    # The account's webhook endpoints (apps/webhooks), each endpoint's deliveries, and their forms.
    path("settings/webhooks", webhooks_views.webhooks_page, name="webhooks-page"),
    path("settings/webhooks/deliveries/<str:delivery_id>", webhooks_views.delivery_page, name="webhook-delivery-page"),
    path(
        "settings/webhooks/deliveries/<str:delivery_id>/redeliver",
        webhooks_views.redeliver_form,
        name="webhook-redeliver",
    ),
    path("settings/webhooks/<str:endpoint_id>", webhooks_views.endpoint_page, name="webhook-endpoint-page"),
    path("settings/webhooks/<str:endpoint_id>/rotate", webhooks_views.rotate_form, name="webhook-rotate"),
    path("settings/webhooks/<str:endpoint_id>/resend", webhooks_views.resend_form, name="webhook-resend"),
]
