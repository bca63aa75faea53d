"""An ended credential disables the endpoints it made, in the transaction that ends it."""

from apps.credentials.signals import credential_ended


def on_credential_ended(sender, *, user_id, kind=None, credential_id=None, **kwargs):
    from .services import endpoints_disable_for_credential

    endpoints_disable_for_credential(user_id=user_id, kind=kind, credential_id=credential_id)


def connect() -> None:
    credential_ended.connect(on_credential_ended, weak=False, dispatch_uid="webhooks.credential_ended")
