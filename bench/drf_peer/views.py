"""The reads with DRF's generic views, ModelSerializers, CursorPagination, DOT's TokenHasScope
and a plain API-key authentication class: what a good Django team writes with stock parts."""

from collections import Counter
from datetime import timedelta

import phonenumbers
from django.db.models import Exists, OuterRef, Prefetch
from django.http import Http404
from django.utils import timezone
from oauth2_provider.contrib.rest_framework import OAuth2Authentication, TokenHasScope
from rest_framework import exceptions, generics, serializers
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.throttling import UserRateThrottle

from apps.accounts.models import SharingSettings, User
from apps.audit.models import AuditEvent
from apps.billing.models import BalanceTransaction
from apps.calls.models import Call
from apps.contacts import search
from apps.contacts.models import Contact, ContactPhoneNumber, ContactSearchTerm
from apps.messages.models import Message
from apps.rates.models import Rate

from .authentication import ApiKeyAuthentication


def livemode(request) -> bool:
    return getattr(request.auth, "livemode", True)  # OAuth tokens are live


class Pages(CursorPagination):
    page_size = 10
    page_size_query_param = "limit"
    max_page_size = 100
    ordering = ("-created", "-id")


class Stock:
    """The settings' classes, named on the views too (DRF binds its defaults when APIView is imported)."""

    authentication_classes = [ApiKeyAuthentication, OAuth2Authentication]
    throttle_classes = [UserRateThrottle]
    renderer_classes = [JSONRenderer]
    permission_classes = [IsAuthenticated]


class ScopedList(Stock, generics.ListAPIView):
    permission_classes = [IsAuthenticated, TokenHasScope]
    pagination_class = Pages


# --- GET /v1/me -------------------------------------------------------------------------------


class UserSerializer(serializers.ModelSerializer):
    object = serializers.SerializerMethodField()
    country_code = serializers.SerializerMethodField()
    time_zone = serializers.SerializerMethodField()
    livemode = serializers.SerializerMethodField()

    class Meta:
        model = User
        fields = ["object", "id", "email", "display_name", "country_code", "time_zone", "livemode"]

    def get_object(self, user):
        return "user"

    def get_country_code(self, user):
        return None

    def get_time_zone(self, user):
        return None

    def get_livemode(self, user):
        return livemode(self.context["request"])


class MeView(Stock, generics.RetrieveAPIView):
    serializer_class = UserSerializer

    def get_object(self):
        return self.request.user


# --- GET /v1/rates?to= ------------------------------------------------------------------------


class RateSerializer(serializers.ModelSerializer):
    object = serializers.SerializerMethodField()
    to = serializers.SerializerMethodField()

    class Meta:
        model = Rate
        fields = ["object", "to", "prefix", "country", "label", "currency", "per_minute", "first_seconds",
                  "next_seconds"]  # fmt: skip

    def get_object(self, rate):
        return "rate"

    def get_to(self, rate):
        return self.context["to"]


class RateView(Stock, generics.RetrieveAPIView):
    serializer_class = RateSerializer
    permission_classes = [IsAuthenticated, TokenHasScope]
    required_scopes = ["rates:read"]

    def get_object(self):
        try:
            number = phonenumbers.parse(self.request.query_params.get("to", ""), None)
        except phonenumbers.NumberParseException as error:
            raise exceptions.ValidationError({"to": "Not a phone number."}) from error
        self.e164 = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
        digits = self.e164[1:]
        rate = Rate.objects.filter(prefix__in=[digits[:n] for n in range(1, len(digits) + 1)]).order_by("-prefix")
        found = rate.first()
        if found is None:
            raise Http404
        return found

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "to": getattr(self, "e164", None)}


# --- GET /v1/balance_transactions ---------------------------------------------------------------


class UnixSeconds(serializers.Field):
    def to_representation(self, value):
        return None if value is None else int(value.timestamp())


class BalanceTransactionSerializer(serializers.ModelSerializer):
    object = serializers.SerializerMethodField()
    created = UnixSeconds()

    class Meta:
        model = BalanceTransaction
        fields = ["id", "object", "amount", "currency", "type", "source", "description", "ending_balance",
                  "created", "livemode"]  # fmt: skip

    def get_object(self, row):
        return "balance_transaction"


class LedgerView(ScopedList):
    serializer_class = BalanceTransactionSerializer
    required_scopes = ["credits:read"]

    def get_queryset(self):
        return BalanceTransaction.objects.filter(user=self.request.user, livemode=livemode(self.request))


# --- GET /v1/calls ----------------------------------------------------------------------------


class CallSerializer(serializers.ModelSerializer):
    object = serializers.SerializerMethodField()
    transcript = serializers.SerializerMethodField()
    created = UnixSeconds()
    answered_at = UnixSeconds()
    ended_at = UnixSeconds()

    class Meta:
        model = Call
        fields = ["id", "object", "direction", "status", "from_number", "to_number", "to_country", "contact_id",
                  "created", "answered_at", "ended_at", "duration", "per_minute_amount_decimal", "first_seconds",
                  "next_seconds", "currency", "transcript", "quote_id", "your_number", "caller_id", "record",
                  "max_duration", "end_reason", "livemode"]  # fmt: skip

    def get_object(self, call):
        return "call"

    def get_transcript(self, call):
        transcript = getattr(call, "transcript", None)
        return transcript.id if transcript is not None else None


class CallListView(ScopedList):
    serializer_class = CallSerializer
    required_scopes = ["calls:read"]

    def get_queryset(self):
        calls = Call.objects.filter(user=self.request.user, livemode=livemode(self.request))
        return calls.select_related("transcript")


# --- GET /v1/contacts?query= --------------------------------------------------------------------


class PhoneNumberSerializer(serializers.ModelSerializer):
    class Meta:
        model = ContactPhoneNumber
        fields = ["number", "label", "country"]


class ContactSerializer(serializers.ModelSerializer):
    object = serializers.SerializerMethodField()
    phone_numbers = PhoneNumberSerializer(many=True, read_only=True)
    created = UnixSeconds()

    class Meta:
        model = Contact
        fields = ["id", "object", "name", "phone_numbers", "created", "livemode"]

    def get_object(self, contact):
        return "contact"


class ByName(Pages):
    ordering = ("sort_name", "id")


class ContactListView(ScopedList):
    serializer_class = ContactSerializer
    required_scopes = ["contacts:read"]
    pagination_class = ByName

    def get_queryset(self):
        mode = livemode(self.request)
        contacts = Contact.objects.filter(user=self.request.user, livemode=mode).prefetch_related(
            Prefetch("phone_numbers", queryset=ContactPhoneNumber.objects.order_by("position", "id"))
        )
        text = self.request.query_params.get("query")
        if not text:
            return contacts
        # The search terms the service writes for each contact (apps.contacts.search derives them).
        query = search.parse_query(text)
        if query is None:
            return contacts.none()
        terms = ContactSearchTerm.objects.filter(user=self.request.user, livemode=mode, kind=query.kind)
        for word in query.terms:
            contacts = contacts.filter(id__in=terms.filter(term__startswith=word).values("contact_id"))
        return contacts


# --- GET /v1/messages -------------------------------------------------------------------------


class MessageSerializer(serializers.ModelSerializer):
    object = serializers.SerializerMethodField()
    direction = serializers.SerializerMethodField()
    number = serializers.CharField(source="number_id")
    to = serializers.CharField(source="to_number")
    one_time_code = serializers.SerializerMethodField()
    created = UnixSeconds()

    class Meta:
        model = Message
        fields = ["id", "object", "direction", "number", "to", "from_sender", "body", "num_segments", "one_time_code",
                  "created", "livemode"]  # fmt: skip

    def get_fields(self):
        # "from" is a Python keyword: the model's field is renamed on the way out.
        fields = super().get_fields()
        fields["from_sender"].source = "from_sender"
        return {("from" if name == "from_sender" else name): field for name, field in fields.items()}

    def get_object(self, message):
        return "message"

    def get_direction(self, message):
        return "inbound"

    def get_one_time_code(self, message):
        return {"code": message.code, "domain": message.code_domain or None} if message.code else None


class MessageListView(ScopedList):
    """The inbox as a stock view writes it: both sharing switches in the queryset, the 60-minute
    window without messages:history, and an audit row for each number a page read. (The service's
    ten reads a minute of each number is a limiter of its own, which DRF's throttles do not offer.)"""

    serializer_class = MessageSerializer
    required_scopes = ["messages:read"]

    def get_queryset(self):
        consents = SharingSettings.objects.filter(user=OuterRef("user"), message_reading=True)
        messages = Message.objects.filter(
            Exists(consents), user=self.request.user, livemode=livemode(self.request), number__messages_opt_in=True
        )
        if "messages:history" not in self.request.auth.scope.split():
            messages = messages.filter(created__gte=timezone.now() - timedelta(minutes=60))
        return messages

    def list(self, request, *args, **kwargs):
        answer = super().list(request, *args, **kwargs)
        read = Counter(row["to"] for row in answer.data["results"])
        key = getattr(request.auth, "key", None)  # an API key; otherwise an OAuth token of an app
        actor = {"actor_type": "api_key", "actor_id": key.pk, "key_id": key.pk} if key else {
            "actor_type": "client", "actor_id": request.auth.application.client_id,
            "client_id": request.auth.application.client_id,
        }  # fmt: skip
        AuditEvent.objects.bulk_create(
            AuditEvent(
                event_type="messages.read",
                user=request.user,
                ip_address=request.META["REMOTE_ADDR"],
                data={"number": number, "count": count, "summary": f"read {count} messages of {number}"},
                **actor,
            )
            for number, count in read.items()
        )
        return answer
