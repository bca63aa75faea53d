"""The calls routes, relative to /v1/."""

urlpatterns = []
