"""Test-only routes: a POST endpoint to exercise the /v1 body rules before any real one exists."""

from django.urls import include, path
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.api_v1.urls import CATCH_ALL


class EchoSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=5)


class EchoView(APIView):
    def post(self, request):
        serializer = EchoSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data, status=201)


class BoomView(APIView):
    authentication_classes = []
    permission_classes = []

    def get(self, request):
        raise RuntimeError("internal detail that must not leak")


def plain_boom(request):
    raise RuntimeError("internal detail that must not leak")


urlpatterns = [
    path("v1/_echo", EchoView.as_view()),
    path("v1/_boom", BoomView.as_view()),
    path("boom", plain_boom),
    path("", include("config.urls")),
    *CATCH_ALL,
]

handler404 = "apps.core.views.handler404"
handler500 = "apps.core.views.handler500"
