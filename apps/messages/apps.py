from django.apps import AppConfig


class MessagesConfig(AppConfig):
    name = "apps.messages"
    # "messages" is django.contrib.messages' label.
    label = "inbox"
    verbose_name = "Messages"

    def ready(self):
        # The opt-in rule of message.received lives here: webhooks imports no resource app.
        from . import webhooks

        webhooks.register()
