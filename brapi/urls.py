"""BrAPI v2.1's calls, routed under /brapi/v2 by `fruitcatalog.urls`; each path with an optional
trailing slash, any other path a BrAPI 404."""

from django.urls import re_path

from brapi import views

ID = r"(?P<{}>[^/]+)"


def route(pattern: str, view, name: str):
    return re_path(rf"^{pattern}/?$", view.as_view(), name=name)


urlpatterns = [
    route("serverinfo", views.ServerInfoView, "brapi-serverinfo"),
    route("commoncropnames", views.CommonCropNamesView, "brapi-commoncropnames"),
    route("germplasm", views.GermplasmListView, "brapi-germplasm-list"),
    route(f"germplasm/{ID.format('germplasm_id')}", views.GermplasmDetailView, "brapi-germplasm"),
    route(f"germplasm/{ID.format('germplasm_id')}/mcpd", views.GermplasmMCPDView, "brapi-mcpd"),
    route("search/germplasm", views.GermplasmSearchView, "brapi-search-germplasm"),
    route("pedigree", views.PedigreeView, "brapi-pedigree"),
    route("attributes", views.AttributeListView, "brapi-attribute-list"),
    route(f"attributes/{ID.format('attribute_id')}", views.AttributeDetailView, "brapi-attribute"),
    route("attributevalues", views.AttributeValueListView, "brapi-attributevalue-list"),
    route("images", views.ImageListView, "brapi-image-list"),
    route(f"images/{ID.format('image_id')}", views.ImageDetailView, "brapi-image"),
    re_path(r"^[\s\S]*$", views.not_found),
]
