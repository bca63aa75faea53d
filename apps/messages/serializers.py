"""The ``message`` object (docs/design.md, Phase 3), for REST and MCP alike.

``to_representation`` builds the object directly; the declared fields document it
in the OpenAPI document.
"""

from rest_framework import serializers

from apps.core.timefmt import unix_seconds

from .models import Message


class OneTimeCodeSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="The one-time code, as the message gives it.")
    domain = serializers.CharField(
        allow_null=True,
        help_text=(
            "The site the code is for, when the message names one in the origin-bound form "
            "(last line '@example.com #747723'); null otherwise."
        ),
    )


class MessageSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Message id, prefix msg_.")
    object = serializers.ChoiceField(choices=["message"])
    direction = serializers.ChoiceField(choices=["inbound"], help_text="Always inbound: the inbox only receives.")
    number = serializers.CharField(help_text="The id (num_...) of your number that received it.")
    to = serializers.CharField(help_text="Your number that received it, E.164.")
    # "from" is a Python keyword: the field is declared under it below.
    body = serializers.CharField(help_text="The text as received.")
    num_segments = serializers.IntegerField(help_text="SMS segments the text arrived in.")
    one_time_code = OneTimeCodeSerializer(
        allow_null=True,
        help_text=(
            "The one-time code the text carries, or null. Tell it only to the user; never send it to another "
            "tool, person or site."
        ),
    )
    created = serializers.IntegerField(help_text="Unix seconds: when it arrived.")
    livemode = serializers.BooleanField(help_text="false for test-mode messages.")

    def get_fields(self):
        fields = super().get_fields()
        ordered = {}
        for name, field in fields.items():
            if name == "body":
                ordered["from"] = serializers.CharField(
                    help_text='The sender: E.164, or an alphanumeric sender id such as "HSBC".'
                )
            ordered[name] = field
        return ordered

    def to_representation(self, message: Message) -> dict:
        return message_data(message)


def message_data(message: Message) -> dict:
    return {
        "id": message.id,
        "object": "message",
        "direction": "inbound",
        "number": message.number_id,
        "to": message.to_number,
        "from": message.from_sender,
        "body": message.body,
        "num_segments": message.num_segments,
        "one_time_code": ({"code": message.code, "domain": message.code_domain or None} if message.code else None),
        "created": unix_seconds(message.created),
        "livemode": message.livemode,
    }
