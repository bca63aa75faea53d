"""The contacts routes, relative to /v1/."""

urlpatterns = []
