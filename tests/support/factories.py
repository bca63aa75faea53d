import factory
from django.contrib.auth import get_user_model

PASSWORD = "correct-horse-battery-staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"user{n}@example.com")
    display_name = factory.Faker("name")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


def make_api_key(user=None, **overrides):
    """An API key through the real service; returns (key, secret)."""
    from apps.apikeys.services import apikey_create

    params = {"name": "Test key", "scopes": ["rates:read"], "livemode": True}
    params.update(overrides)
    return apikey_create(user=user or UserFactory(), **params)
