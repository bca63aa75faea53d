"""Saves and deletes of the rows a cached credential comes from move a revocation epoch.

The models are named by configuration, never imported: the user model, each
resolver's credential model (``settings.BEARER_RESOLVERS[...]["model"]``),
and DOT's application model, whose disabling ends every token of the client.
Bulk revocations (``QuerySet.update``) send no signal; the services that do
them call ``apps.credentials.revocation`` themselves.
"""

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models.signals import post_delete, post_save

from .revocation import invalidate_everyone, invalidate_user, refresh_user_soon


def by_owner(sender, instance, created=False, **kwargs):
    if not created and instance.user_id is not None:
        invalidate_user(instance.user_id)


def by_user(sender, instance, created=False, update_fields=None, **kwargs):
    if created or set(update_fields or ()) == {"last_login"}:
        return  # a sign-in stamps last_login, which no credential carries
    if kwargs.get("signal") is post_delete or not instance.is_active:
        invalidate_user(instance.pk)  # the resolvers refuse an inactive user: end it now
    else:
        # A display name or email change ends no credential; the cached copy of the
        # user is refreshed after commit, and the write never waits for the store.
        refresh_user_soon(instance.pk)


def by_client(sender, instance, created=False, update_fields=None, **kwargs):
    # Disabling a client ends its tokens without touching them; metadata refreshes do not.
    # Deleting one deletes its tokens, whose own signals move their users' epochs.
    if not created and (update_fields is None or "disabled_at" in update_fields):
        invalidate_everyone()


def connect() -> None:
    from oauth2_provider.models import get_application_model

    owners = {entry["model"] for entry in settings.BEARER_RESOLVERS.values() if entry.get("model")}
    for label in sorted(owners):
        model = apps.get_model(label)
        uid = f"credentials.{label}"
        post_save.connect(by_owner, sender=model, weak=False, dispatch_uid=uid + ".save")
        post_delete.connect(by_owner, sender=model, weak=False, dispatch_uid=uid + ".delete")
    user_model = get_user_model()
    post_save.connect(by_user, sender=user_model, weak=False, dispatch_uid="credentials.user.save")
    post_delete.connect(by_user, sender=user_model, weak=False, dispatch_uid="credentials.user.delete")
    post_save.connect(
        by_client, sender=get_application_model(), weak=False, dispatch_uid="credentials.application.save"
    )
