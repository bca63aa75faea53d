"""The billing routes, relative to /v1/."""

urlpatterns = []
