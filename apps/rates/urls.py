"""The rates routes, relative to /v1/."""

urlpatterns = []
