"""BrAPI v2.1's read calls under /brapi/v2 (`brapi.urls`): DRF views answering BrAPI's envelope.

Every answer is `{"metadata": {"pagination", "status", "datafiles"}, "result"}`; a list's
`result` is `{"data": [...]}`, paged by `page` (from 0) and `pageSize` (1000 by default; their
bounds and the filters' in `brapi.params`). Errors keep the API's statuses (its exception
handler: 400, 401, 404, 503...) with BrAPI's body: the message in `metadata.status` as an
`ERROR`. Reads are public; the API's token authenticates as `Authorization: Bearer <key>` (or
`Token <key>`), and a bad one is a 401. The views are left out of the API's OpenAPI schema:
BrAPI's own document describes them.
"""

import math

from django.conf import settings
from django.db.models import Q
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.authentication import get_authorization_header
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from brapi import mapping, reads
from brapi.params import (
    ATTRIBUTE_NO_DATA,
    ATTRIBUTE_VALUE_NO_DATA,
    GERMPLASM_NO_DATA,
    IMAGE_NO_DATA,
    NO_DATA,
    PEDIGREE_NO_DATA,
    flag,
    page_params,
    query_filters,
    search_filters,
    with_puis,
)
from catalog.exports import fruit_page_url
from catalog.models import ANCESTRY, Fruit, FruitRelation
from core.db.ids import parse_id
from core.rest.authentication import TokenAuthentication
from core.rest.exceptions import brapi_error_body, messages_of
from core.rest.exceptions import exception_handler as api_exception_handler
from core.rest.pagination import ScalablePaginator

# The list filters each call takes (`reads`); BrAPI's filters on data the catalog has not match
# nothing (`params`); any other parameter is ignored, as BrAPI servers do.
GERMPLASM_FILTERS = (
    "germplasmDbId",
    "germplasmName",
    "germplasmPUI",
    "accessionNumber",
    "commonCropName",
    "synonym",
    "genus",
    "species",
    "binomialName",
)
GERMPLASM_RELATIONS = ("parentDbId", "progenyDbId")
ATTRIBUTE_FILTERS = (
    "attributeDbId",
    "attributeName",
    "commonCropName",
    "germplasmDbId",
    "traitDbId",
    "methodDbId",
    "scaleDbId",
    "traitName",
    "methodName",
    "scaleName",
)
ATTRIBUTE_VALUE_FILTERS = (
    "attributeValueDbId",
    "attributeDbId",
    "attributeName",
    "germplasmDbId",
    "commonCropName",
)
IMAGE_FILTERS = ("imageDbId", "imageName", "commonCropName")


def metadata(*, pagination: dict | None = None, status: list | None = None) -> dict:
    body = {"datafiles": [], "status": status or []}
    if pagination is not None:
        body["pagination"] = pagination
    return body


# Headers of an error that a client acts on.
KEPT_HEADERS = ("Retry-After", "WWW-Authenticate")


def exception_handler(exc, context):
    """The API's exception handler (statuses, 503s of an unreachable database, logging), its
    answer in BrAPI's shape."""
    response = api_exception_handler(exc, context)
    if response is None or not isinstance(response, Response):
        return response  # None, or the handler's own JSON, already in the path's envelope
    headers = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
    body = brapi_error_body(messages_of(response.data))
    return Response(body, status=response.status_code, headers=headers)


@csrf_exempt
def not_found(request, *args, **kwargs):
    """Any other path under /brapi/: a BrAPI 404, whatever the method."""
    message = "No such BrAPI call: see /brapi/v2/serverinfo."
    return JsonResponse(brapi_error_body([message]), status=404)


def paged(rows, page: int, size: int) -> tuple[list, dict]:
    """A page of a list or a queryset, and its BrAPI pagination. A page past the last is empty.

    A queryset is counted by `ScalablePaginator` (exact up to its limit, PostgreSQL's estimate
    above) and its page read in one more query (`page_rows`); a page starting past the count
    (the estimate above 10,000 matches) is not looked for: no OFFSET walks that far.
    """
    offset = page * size
    if isinstance(rows, list):
        total, items = len(rows), rows[offset : offset + size]
    else:
        paginator = ScalablePaginator(rows, size)
        total = paginator.count
        items = [] if offset >= total else page_rows(rows, offset, size)
    pagination = {
        "currentPage": page,
        "pageSize": size,
        "totalCount": total,
        "totalPages": math.ceil(total / size),
    }
    return items, pagination


def page_rows(rows, offset: int, size: int) -> list:
    """`size` rows of the queryset `rows` from `offset`, in its order, in one query: its ordered
    ids are sliced in a subquery (an index walk, no annotation computed for a row skipped), and
    the page's rows alone are read with their annotations. The ids stay in the database: no
    1,000 parameters to send and parse."""
    return list(rows.filter(pk__in=rows.values("pk")[offset : offset + size]))


class BearerTokenAuthentication(TokenAuthentication):
    """The API's token, as BrAPI clients send it (`Bearer <key>`, or `Token <key>`); the only
    authentication of BrAPI's public reads, so a browser's session (and its CSRF check) plays no
    part. A Bearer header without a key (`Bearer`, `Bearer null`, `Bearer undefined`, what
    clients send before they have one) reads anonymously; a bad key is a 401 that asks for the
    scheme the client used (`WWW-Authenticate: Bearer`, RFC 6750, or `Token`)."""

    NO_KEYS = ([], [b"null"], [b"undefined"])

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if parts and parts[0].lower() == b"bearer" and parts[1:] in self.NO_KEYS:
            return None
        return super().authenticate(request)

    def authenticate_header(self, request):
        sent = get_authorization_header(request).split()[:1]
        return "Bearer" if sent and sent[0].lower() == b"bearer" else "Token"


class BrapiView(APIView):
    """What every BrAPI call shares: public reads, JSON, BrAPI's envelope and errors."""

    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]
    schema = None  # BrAPI's own OpenAPI document describes these calls

    def get_exception_handler(self):
        return exception_handler

    def page_url(self):
        return fruit_page_url(self.request)

    def single(self, result: dict) -> Response:
        return Response({"metadata": metadata(), "result": result})

    def listed(self, rows, to_record, source=None) -> Response:
        page, size = page_params(source if source is not None else self.request.query_params)
        items, pagination = paged(rows, page, size)
        data = [to_record(item) for item in items]
        return Response({"metadata": metadata(pagination=pagination), "result": {"data": data}})


def lookup(queryset, pk: str, what: str):
    """The row of a path's id, or BrAPI's 404."""
    found = queryset.filter(pk=parse_id(pk)).first() if parse_id(pk) is not None else None
    if found is None:
        raise exceptions.NotFound(f"No {what} has the id {pk!r}.")
    return found


# What /serverinfo lists: each call with its methods.
CALLS = [
    ("serverinfo", "GET"),
    ("commoncropnames", "GET"),
    ("germplasm", "GET"),
    ("germplasm/{germplasmDbId}", "GET"),
    ("germplasm/{germplasmDbId}/mcpd", "GET"),
    ("search/germplasm", "POST"),
    ("pedigree", "GET"),
    ("attributes", "GET"),
    ("attributes/{attributeDbId}", "GET"),
    ("attributevalues", "GET"),
    ("images", "GET"),
    ("images/{imageDbId}", "GET"),
]


class ServerInfoView(BrapiView):
    def get(self, request):
        organization = (
            settings.FRUITCATALOG_DATASET_CONTACT_ORGANIZATION
            or settings.FRUITCATALOG_DATASET_TITLE
        )
        info = {
            "serverName": settings.FRUITCATALOG_DATASET_TITLE,
            "serverDescription": (
                "Fruit varieties (cultivars) as BrAPI v2.1 germplasm, with their pedigree, "
                "characteristics (germplasm attributes) and images; read only."
            ),
            "organizationName": organization,
            "documentationURL": request.build_absolute_uri("/api/v1/docs"),
            "calls": [
                {
                    "service": service,
                    "methods": [method],
                    "versions": ["2.1"],
                    "contentTypes": ["application/json"],
                    "dataTypes": ["application/json"],
                }
                for service, method in CALLS
            ],
        }
        if settings.FRUITCATALOG_DATASET_CONTACT_EMAIL:
            info["contactEmail"] = settings.FRUITCATALOG_DATASET_CONTACT_EMAIL
        return self.single(info)


class CommonCropNamesView(BrapiView):
    """One crop name per fruit type that has fruits: the type's code (`apple`)."""

    def get(self, request):
        return self.listed(sorted(Fruit.objects.types_in_use()), str)


def germplasm_rows(rows, filters: dict[str, list[str]], page_url):
    """The germplasm (or pedigree nodes) the filters find: the list's (`reads`), a PUI as its
    fruit's id, `parentDbId` the fruits with that parent and `progenyDbId` those with that
    progeny (any kind of parentage); none for a filter on data the catalog has not."""
    if NO_DATA in filters:
        return rows.none()
    rows = reads.filter_germplasm(rows, with_puis(filters, page_url))
    for name, (found, given) in RELATED.items():
        if name in filters:
            linked = FruitRelation.objects.filter(
                kind__in=ANCESTRY, **{f"{given}__in": reads.ids(filters[name])}
            )
            rows = rows.filter(pk__in=linked.values(found))
    return rows


# A relation filter: the relation's side a match is, and the side the filter's ids are.
RELATED = {"parentDbId": ("fruit_id", "other_id"), "progenyDbId": ("other_id", "fruit_id")}


class GermplasmListView(BrapiView):
    def get(self, request):
        page_url = self.page_url()
        filters = query_filters(request, GERMPLASM_FILTERS + GERMPLASM_RELATIONS, GERMPLASM_NO_DATA)
        fruits = germplasm_rows(reads.germplasm(), filters, page_url)
        return self.listed(fruits, lambda fruit: mapping.germplasm(fruit, page_url=page_url))


class GermplasmSearchView(BrapiView):
    """BrAPI's search: the list's filters as arrays in the body, answered at once (200), never
    deferred (no 202 and `searchResultsDbId`)."""

    def post(self, request):
        body = request.data
        filters = search_filters(body)
        page_url = self.page_url()
        fruits = germplasm_rows(reads.germplasm(), filters, page_url)
        return self.listed(
            fruits, lambda fruit: mapping.germplasm(fruit, page_url=page_url), source=body
        )


class GermplasmDetailView(BrapiView):
    def get(self, request, germplasm_id):
        fruit = lookup(reads.germplasm(), germplasm_id, "germplasm")
        return self.single(mapping.germplasm(fruit, page_url=self.page_url()))


class GermplasmMCPDView(BrapiView):
    def get(self, request, germplasm_id):
        fruit = lookup(reads.germplasm(), germplasm_id, "germplasm")
        return self.single(mapping.mcpd(fruit, page_url=self.page_url()))


class PedigreeView(BrapiView):
    """Pedigree nodes of the germplasm the filters find (the germplasm list's filters), with
    parents and progeny unless `includeParents`/`includeProgeny` are false. Siblings and whole
    trees (`includeSiblings`, `includeFullTree`, depths) are not served: a client walks the tree
    by the parents' and progeny's ids."""

    def get(self, request):
        parents = flag(request, "includeParents", default=True)
        progeny = flag(request, "includeProgeny", default=True)
        page_url = self.page_url()
        filters = query_filters(request, GERMPLASM_FILTERS, PEDIGREE_NO_DATA)
        fruits = germplasm_rows(reads.pedigree(progeny=progeny), filters, page_url)
        return self.listed(
            fruits,
            lambda fruit: mapping.pedigree_node(
                fruit, page_url=page_url, parents=parents, progeny=progeny
            ),
        )


class AttributeListView(BrapiView):
    def get(self, request):
        filters = query_filters(request, ATTRIBUTE_FILTERS, ATTRIBUTE_NO_DATA)
        if NO_DATA in filters:
            return self.listed([], mapping.attribute)
        found = reads.attributes(filters).filter(attribute_names(filters))
        return self.listed(found, mapping.attribute)


# `mapping.attribute`'s method name for a characteristic without a reference.
UNREFERENCED_METHOD = "Described"


def attribute_names(filters: dict[str, list[str]]) -> Q:
    """The attributes whose trait, method or scale has one of the names asked for, as
    `mapping.attribute` names them: the trait the characteristic's name, the method its
    reference (else `Described`), the scale "name (ordinal|nominal)"."""
    condition = Q()
    if "traitName" in filters:
        condition &= Q(name__in=filters["traitName"])
    if "methodName" in filters:
        names = filters["methodName"]
        condition &= Q(reference__in=names) | (
            Q(reference="") if UNREFERENCED_METHOD in names else reads.NOTHING
        )
    if "scaleName" in filters:
        scales = reads.NOTHING
        for text in filters["scaleName"]:
            name, _, scale = text.removesuffix(")").rpartition(" (")
            scales |= Q(name=name, scale=scale) if name and text.endswith(")") else reads.NOTHING
        condition &= scales
    return condition


class AttributeDetailView(BrapiView):
    def get(self, request, attribute_id):
        found = lookup(reads.attributes({}), attribute_id, "attribute")
        return self.single(mapping.attribute(found))


class AttributeValueListView(BrapiView):
    def get(self, request):
        filters = query_filters(request, ATTRIBUTE_VALUE_FILTERS, ATTRIBUTE_VALUE_NO_DATA)
        found = reads.attribute_values(filters)
        found = found.none() if NO_DATA in filters else found
        absolute = request.build_absolute_uri
        return self.listed(found, lambda link: mapping.attribute_value(link, absolute=absolute))


class ImageListView(BrapiView):
    def get(self, request):
        filters = query_filters(request, IMAGE_FILTERS, IMAGE_NO_DATA)
        found = reads.images(filters).none() if NO_DATA in filters else reads.images(filters)
        absolute = request.build_absolute_uri
        return self.listed(found, lambda row: mapping.image(row, absolute=absolute))


class ImageDetailView(BrapiView):
    def get(self, request, image_id):
        row = lookup(reads.images({}), image_id, "image")
        return self.single(mapping.image(row, absolute=request.build_absolute_uri))
