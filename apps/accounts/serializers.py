from rest_framework import serializers


class UserSerializer(serializers.Serializer):
    """Documents the user object; built directly from the principal on the hot path."""

    object = serializers.ChoiceField(choices=["user"])
    id = serializers.CharField(help_text="Account id, prefix usr_.")
    email = serializers.EmailField()
    display_name = serializers.CharField()
    country_code = serializers.CharField(allow_null=True, help_text="Always null today.")
    time_zone = serializers.CharField(allow_null=True, help_text="Always null today.")
    livemode = serializers.BooleanField()

    @staticmethod
    def from_principal(principal) -> dict:
        user = principal.user
        return {
            "object": "user",
            "id": user.id,
            "email": user.email,
            "display_name": user.display_name,
            "country_code": None,
            "time_zone": None,
            "livemode": principal.livemode,
        }
