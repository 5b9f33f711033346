"""Root URLs: the public site (English, and German under /de/), admin, health, the API under
/api/v1, its schema and docs, and BrAPI v2.1 under /brapi/v2."""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.utils.translation import gettext_lazy as _
from django.views.generic import RedirectView

from brapi.views import not_found as brapi_not_found
from catalog.pages import catalog_grid
from core.rest.exceptions import json_not_found
from core.rest.health import RootHealthView
from core.rest.schema import RedocView, SchemaView, SwaggerView
from fruitcatalog.api import api_root
from identification.pages import compare_page, identify_page
from publications.pages import publication_list, publication_page
from wholefruit.pages import fruit_page

admin.site.site_header = _("Fruit Catalog administration")  # each admin page's header
admin.site.site_title = _("Fruit Catalog admin")  # after " | " in each admin page's <title>
admin.site.index_title = _("Catalog, publications and characteristics")

handler400 = "core.site.faults.bad_request"
handler404 = "core.site.pages.not_found"
handler500 = "core.site.faults.server_error"

# The public site: the card grid, a fruit's page, identifying a fruit, the publications. English
# at these paths, German under /de/ (core/http/languages.py decides each request's language).
urlpatterns = i18n_patterns(
    path("", catalog_grid, name="catalog-grid"),
    path("fruits/<int:pk>/", fruit_page, name="fruit-page"),
    path("identify/", identify_page, name="identify-page"),
    path("compare/", compare_page, name="compare-page"),
    path("publications/", publication_list, name="publication-list-page"),
    path("publications/<int:pk>/", publication_page, name="publication-page"),
    prefix_default_language=False,
)

urlpatterns += [
    # Browsers ask for it whatever a page links (Chromium's PDF viewer does).
    path("favicon.ico", RedirectView.as_view(url=static("site/favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    re_path(r"^health/?$", RootHealthView.as_view(), name="health"),
    re_path(r"^api/v1/schema/?$", SchemaView.as_view(), name="schema"),
    re_path(r"^api/v1/docs/?$", SwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    re_path(
        r"^api/v1/redoc/?$",
        RedocView.as_view(url_name="schema", template_name="core/redoc.html"),
        name="redoc",
    ),
    re_path(r"^api/v1/?$", api_root, name="api-root"),
    path("api/v1/", include("fruitcatalog.api")),
    # Log in / log out links of the browsable API (session auth for curators).
    path("api-auth/", include("rest_framework.urls")),
    re_path(r"^api(/[\s\S]*)?$", json_not_found),  # [\s\S]: paths with newlines too
    # BrAPI v2.1, the plant-breeding community's API (read only; brapi/).
    path("brapi/v2/", include("brapi.urls")),
    re_path(r"^brapi(/[\s\S]*)?$", brapi_not_found),
]
