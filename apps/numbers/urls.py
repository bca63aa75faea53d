"""The numbers routes, relative to /v1/."""

urlpatterns = []
