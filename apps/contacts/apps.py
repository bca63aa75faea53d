from django.apps import AppConfig


class ContactsConfig(AppConfig):
    name = "apps.contacts"
    label = "contacts"

    def ready(self):
        from apps.api_v1.public import register_expansion

        from .serializers import expanded_contacts

        # A call's expand[]=contact is the contact as GET /v1/contacts/{id} writes it.
        register_expansion("contact", expanded_contacts)
