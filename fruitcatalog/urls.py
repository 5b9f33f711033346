"""Root URLs: admin, health, the API under /api/v1, its schema and documentation."""

from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

from fruitcatalog.exceptions import json_not_found
from fruitcatalog.health import RootHealthView
from fruitcatalog.schema import SchemaView

urlpatterns = [
    # A newcomer opening the bare address lands on the API documentation.
    path("", RedirectView.as_view(pattern_name="swagger-ui", permanent=False)),
    path("admin/", admin.site.urls),
    re_path(r"^health/?$", RootHealthView.as_view(), name="health"),
    re_path(r"^api/v1/schema/?$", SchemaView.as_view(), name="schema"),
    re_path(
        r"^api/v1/docs/?$", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"
    ),
    re_path(
        r"^api/v1/redoc/?$",
        SpectacularRedocView.as_view(url_name="schema", template_name="fruitcatalog/redoc.html"),
        name="redoc",
    ),
    path("api/v1/", include("fruitcatalog.api")),
    # Log in / log out links of the browsable API (session auth for curators).
    path("api-auth/", include("rest_framework.urls")),
    re_path(r"^api(/[\s\S]*)?$", json_not_found),  # [\s\S]: paths with newlines too
]
