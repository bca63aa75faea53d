from django.apps import AppConfig


class MessagesConfig(AppConfig):
    name = "apps.messages"
    # "messages" is django.contrib.messages' label.
    label = "inbox"
    verbose_name = "Messages"
