from django.urls import path, re_path

from . import views

urlpatterns = [
    path("me", views.me_view(), name="v1-me"),
    path("openapi.json", views.OpenApiView.as_view(), name="v1-openapi"),
]

# Must stay last: everything else under /v1 is route_not_found, never a redirect.
catch_all = [re_path(r"^v1(?:/.*)?$", views.route_not_found)]
