"""The ``number`` and ``caller_id`` objects (docs/design.md, Phase 2), for REST and MCP alike.

``to_representation`` builds each object directly; the declared fields document
it in the OpenAPI document.
"""

from rest_framework import serializers

from apps.core.timefmt import unix_seconds

from .models import CallerId, Number, NumberStatus, NumberType


class NumberCapabilitiesSerializer(serializers.Serializer):
    voice = serializers.BooleanField(help_text="Calls can be made from and received on the number.")
    sms = serializers.BooleanField(help_text="The number receives SMS.")


class NumberSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Number id, prefix num_.")
    object = serializers.ChoiceField(choices=["number"])
    number = serializers.CharField(help_text="E.164, with +.")
    country = serializers.CharField(
        allow_null=True, help_text="ISO 3166-1 alpha-2 of the number; null for numbers of no country (+800...)."
    )
    type = serializers.ChoiceField(choices=NumberType.values)
    capabilities = NumberCapabilitiesSerializer()
    messages_opt_in = serializers.BooleanField(
        help_text=(
            "The number's sharing switch (Settings, Sharing): whether connected apps may read its messages once "
            "message reading ships. Off unless the account holder turns it on."
        )
    )
    status = serializers.ChoiceField(choices=NumberStatus.values)
    label = serializers.CharField(allow_null=True, help_text="The account holder's name for the number, if any.")
    renews_at = serializers.IntegerField(
        allow_null=True, help_text="Unix seconds of the next rental renewal; null once canceled."
    )
    created = serializers.IntegerField(help_text="Unix seconds.")
    livemode = serializers.BooleanField(help_text="false for test-mode numbers.")

    def to_representation(self, number: Number) -> dict:
        return {
            "id": number.id,
            "object": "number",
            "number": number.number,
            "country": number.country or None,
            "type": number.type,
            "capabilities": {"voice": number.voice, "sms": number.sms},
            "messages_opt_in": number.messages_opt_in,
            "status": number.status,
            "label": number.label or None,
            "renews_at": unix_seconds(number.renews_at),
            "created": unix_seconds(number.created),
            "livemode": number.livemode,
        }


class CallerIdSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Caller ID id, prefix cid_.")
    object = serializers.ChoiceField(choices=["caller_id"])
    number = serializers.CharField(help_text="E.164, with +.")
    country = serializers.CharField(allow_null=True, help_text="ISO 3166-1 alpha-2 of the number.")
    verified_at = serializers.IntegerField(help_text="Unix seconds: when the account proved it holds the number.")
    default = serializers.BooleanField(help_text="The caller ID calls show unless told otherwise; at most one.")
    created = serializers.IntegerField(help_text="Unix seconds.")
    livemode = serializers.BooleanField(help_text="false for test-mode caller IDs.")

    def to_representation(self, caller_id: CallerId) -> dict:
        return {
            "id": caller_id.id,
            "object": "caller_id",
            "number": caller_id.number,
            "country": caller_id.country or None,
            "verified_at": unix_seconds(caller_id.verified_at),
            "default": caller_id.is_default,
            "created": unix_seconds(caller_id.created),
            "livemode": caller_id.livemode,
        }
