"""BrAPI v2.1's read calls under /brapi/v2 (`brapi.urls`): DRF views answering BrAPI's envelope.

Every answer is `{"metadata": {"pagination", "status", "datafiles"}, "result"}`; a list's
`result` is `{"data": [...]}`, paged by `page` (from 0) and `pageSize` (1000 by default, at most
`PAGE_SIZE_MAX`). Errors keep the API's statuses (its exception handler: 400, 401, 404, 503...)
with BrAPI's body: the message in `metadata.status` as an `ERROR`. Reads are public; the API's
token authenticates as `Authorization: Bearer <key>` (or `Token <key>`), and a bad one is a 401.
The views are left out of the API's OpenAPI schema: BrAPI's own document describes them.
"""

import json
import math

from django.conf import settings
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from brapi import mapping, reads
from catalog.exports import fruit_page_url
from catalog.models import Fruit
from core.db.ids import parse_id
from core.rest.exceptions import exception_handler as api_exception_handler
from core.rest.pagination import ScalablePaginator

PAGE_SIZE_DEFAULT = 1000  # BrAPI's default
PAGE_SIZE_MAX = 1000
# The list filters each call takes (`reads`); any other parameter is ignored, as BrAPI servers do.
GERMPLASM_FILTERS = (
    "germplasmDbId",
    "germplasmName",
    "accessionNumber",
    "commonCropName",
    "synonym",
    "genus",
    "species",
    "binomialName",
)
# A search request's arrays and the germplasm filter each one is.
SEARCH_FILTERS = {
    "germplasmDbIds": "germplasmDbId",
    "germplasmNames": "germplasmName",
    "accessionNumbers": "accessionNumber",
    "commonCropNames": "commonCropName",
    "synonyms": "synonym",
    "genus": "genus",
    "species": "species",
    "binomialNames": "binomialName",
}
ATTRIBUTE_FILTERS = (
    "attributeDbId",
    "attributeName",
    "commonCropName",
    "germplasmDbId",
    "traitDbId",
    "methodDbId",
    "scaleDbId",
)
ATTRIBUTE_VALUE_FILTERS = (
    "attributeValueDbId",
    "attributeDbId",
    "attributeName",
    "germplasmDbId",
    "commonCropName",
)
IMAGE_FILTERS = ("imageDbId", "imageName", "commonCropName")
BOOLEANS = {"true": True, "false": False}


class BadParameter(exceptions.APIException):
    """A paging value or flag BrAPI defines, given a value it cannot take."""

    status_code = 400
    default_code = "bad_parameter"


def metadata(*, pagination: dict | None = None, status: list | None = None) -> dict:
    body = {"datafiles": [], "status": status or []}
    if pagination is not None:
        body["pagination"] = pagination
    return body


def error_body(messages: list[str]) -> dict:
    """BrAPI's answer to a request it refuses: the messages as `ERROR`s in `metadata.status`."""
    status = [{"message": message, "messageType": "ERROR"} for message in messages]
    return {"metadata": metadata(status=status)}


def messages_of(detail) -> list[str]:
    """The texts of a DRF error body (`{"detail": ...}`, a field's list, a list)."""
    if isinstance(detail, dict):
        if set(detail) == {"detail"}:
            return messages_of(detail["detail"])
        return [
            f"{field}: {text}" for field, value in detail.items() for text in messages_of(value)
        ]
    if isinstance(detail, list):
        return [text for item in detail for text in messages_of(item)]
    return [str(detail)]


# Headers of an error that a client acts on.
KEPT_HEADERS = ("Retry-After", "WWW-Authenticate")


def exception_handler(exc, context):
    """The API's exception handler (statuses, 503s of an unreachable database, logging), its
    answer in BrAPI's shape."""
    response = api_exception_handler(exc, context)
    if response is None:
        return None
    # A DRF answer, or the handler's own JSON (an unreachable database).
    detail = response.data if isinstance(response, Response) else json.loads(response.content)
    headers = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
    return Response(error_body(messages_of(detail)), status=response.status_code, headers=headers)


@csrf_exempt
def not_found(request, *args, **kwargs):
    """Any other path under /brapi/: a BrAPI 404, whatever the method."""
    return JsonResponse(error_body(["No such BrAPI call: see /brapi/v2/serverinfo."]), status=404)


def page_params(source) -> tuple[int, int]:
    """`page` (from 0) and `pageSize` (1 to `PAGE_SIZE_MAX`) from a query or a search body."""
    page = whole_number(source, "page", default=0, least=0)
    size = whole_number(source, "pageSize", default=PAGE_SIZE_DEFAULT, least=1)
    if size > PAGE_SIZE_MAX:
        raise BadParameter(f"pageSize must be at most {PAGE_SIZE_MAX}.")
    return page, size


def whole_number(source, name: str, *, default: int, least: int) -> int:
    value = source.get(name)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        value = None
    elif isinstance(value, str) and value.isascii() and value.lstrip("-").isdecimal():
        value = int(value)
    if not isinstance(value, int) or value < least:
        raise BadParameter(f"{name} must be a whole number from {least}.")
    return value


def flag(request, name: str, *, default: bool) -> bool:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    if value.lower() not in BOOLEANS:
        raise BadParameter(f"{name} must be true or false.")
    return BOOLEANS[value.lower()]


def query_filters(request, names) -> dict[str, list[str]]:
    """The filters a GET gives (a parameter may be repeated); empty values are none."""
    found = {}
    for name in names:
        values = [value for value in request.query_params.getlist(name) if value != ""]
        if values:
            found[name] = values
    return found


# The last offset a database's integers hold (a bigint OFFSET): no page starts further on.
OFFSET_MAX = 2**63 - 1


def paged(rows, page: int, size: int) -> tuple[list, dict]:
    """A page of a list or a queryset, and its BrAPI pagination. A page past the last is empty.

    A queryset is counted by `ScalablePaginator` (exact up to its limit, PostgreSQL's estimate
    above) and its page read in one more query (`page_rows`); past an exact count, not at all.
    """
    offset = page * size
    if isinstance(rows, list):
        total, items = len(rows), rows[offset : offset + size]
    else:
        paginator = ScalablePaginator(rows, size)
        total = paginator.count
        beyond = offset > OFFSET_MAX - size or (offset >= total and not paginator.count_is_estimate)
        items = [] if beyond else page_rows(rows, offset, size)
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


class BrapiView(APIView):
    """What every BrAPI call shares: public reads, JSON, BrAPI's envelope and errors."""

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


class GermplasmListView(BrapiView):
    def get(self, request):
        fruits = reads.filter_germplasm(
            reads.germplasm(), query_filters(request, GERMPLASM_FILTERS)
        )
        page_url = self.page_url()
        return self.listed(fruits, lambda fruit: mapping.germplasm(fruit, page_url=page_url))


class GermplasmSearchView(BrapiView):
    """BrAPI's search: the list's filters as arrays in the body, answered at once (200), never
    deferred (no 202 and `searchResultsDbId`)."""

    def post(self, request):
        body = request.data
        if not isinstance(body, dict):
            raise BadParameter("The search request must be a JSON object.")
        filters = {}
        for field, name in SEARCH_FILTERS.items():
            values = body.get(field)
            if values is None:
                continue
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise BadParameter(f"{field} must be an array of strings.")
            filters[name] = values
        fruits = reads.filter_germplasm(reads.germplasm(), filters)
        page_url = self.page_url()
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
        fruits = reads.filter_germplasm(
            reads.pedigree(progeny=progeny), query_filters(request, GERMPLASM_FILTERS)
        )
        page_url = self.page_url()
        return self.listed(
            fruits,
            lambda fruit: mapping.pedigree_node(
                fruit, page_url=page_url, parents=parents, progeny=progeny
            ),
        )


class AttributeListView(BrapiView):
    def get(self, request):
        found = reads.attributes(query_filters(request, ATTRIBUTE_FILTERS))
        return self.listed(found, mapping.attribute)


class AttributeDetailView(BrapiView):
    def get(self, request, attribute_id):
        found = lookup(reads.attributes({}), attribute_id, "attribute")
        return self.single(mapping.attribute(found))


class AttributeValueListView(BrapiView):
    def get(self, request):
        found = reads.attribute_values(query_filters(request, ATTRIBUTE_VALUE_FILTERS))
        absolute = request.build_absolute_uri
        return self.listed(found, lambda link: mapping.attribute_value(link, absolute=absolute))


class ImageListView(BrapiView):
    def get(self, request):
        found = reads.images(query_filters(request, IMAGE_FILTERS))
        absolute = request.build_absolute_uri
        return self.listed(found, lambda row: mapping.image(row, absolute=absolute))


class ImageDetailView(BrapiView):
    def get(self, request, image_id):
        row = lookup(reads.images({}), image_id, "image")
        return self.single(mapping.image(row, absolute=request.build_absolute_uri))
