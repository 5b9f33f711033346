"""The public change feed: `GET /api/v1/changes?after=<cursor>`."""

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from changes.feed import BadCursor, CursorGone, decode_cursor, encode_cursor, newest_seq, read_page
from changes.serializers import ChangePageSerializer
from core.rest.schema import error_response

# A full page never changes: its entries are committed and only pruning removes them (a cached
# copy still lists what happened). The last page grows with every write: a short while only.
FULL_PAGE_CACHE = "public, max-age=86400"
LAST_PAGE_CACHE = "public, max-age=5"
# English in the schema, in the request's language in an answer.
GONE = gettext_noop(
    "This cursor is older than the oldest change kept (or ahead of every change given out): "
    "start again from a full export, with the cursor of ?latest=true taken before it."
)


class CursorGoneError(exceptions.APIException):
    """The feed cannot continue from this cursor (410)."""

    status_code = status.HTTP_410_GONE
    default_detail = gettext_lazy(GONE)
    default_code = "cursor_gone"


class ChangeFeedParameters(serializers.Serializer):
    """The query: where to continue, or where the feed ends now."""

    after = serializers.CharField(required=False)
    latest = serializers.BooleanField(required=False, default=False)

    def validate_after(self, text):
        try:
            return decode_cursor(text)
        except BadCursor:
            raise serializers.ValidationError(
                _("Not a cursor of this feed: pass the `next` of an earlier answer.")
            ) from None

    def validate(self, attrs):
        if attrs["latest"] and "after" in attrs:
            raise serializers.ValidationError({"latest": [_("Give either `after` or `latest`.")]})
        return attrs


@extend_schema(
    summary="Follow every change of the catalog",
    description=(
        "Every committed change of a fruit, publication or characteristic, deletions included, "
        "exactly once and in commit order (`seq` increases strictly), oldest first, at most "
        "1,000 an answer. Follow `next` until `results` is empty: then you have seen "
        "everything; keep polling with the last `next`. A fruit's names, relations, "
        "characteristic values, images, card image and citations are the fruit's; a "
        "publication's cover, citations, PDFs and fruit images are the publication's. "
        "Entries are kept `FRUITCATALOG_CHANGES_RETENTION_DAYS` (365 by default): a cursor "
        "older than the oldest kept entry is a 410, and the client starts again from a full "
        "export. A full page is cacheable for a day, the last one for 5 seconds. Public: "
        "no user is named."
    ),
    parameters=[
        OpenApiParameter(
            "after",
            OpenApiTypes.STR,
            OpenApiParameter.QUERY,
            required=False,
            description=(
                "An opaque cursor: the `next` of an earlier answer. Without it the feed starts "
                "at the oldest entry kept."
            ),
        ),
        OpenApiParameter(
            "latest",
            OpenApiTypes.BOOL,
            OpenApiParameter.QUERY,
            required=False,
            description=(
                "`true`: no entries, and as `next` the cursor after the newest one, where a "
                "mirror that takes a full export now starts following (take it before the "
                "export)."
            ),
        ),
    ],
    responses={
        200: ChangePageSerializer,
        400: OpenApiResponse(
            {"$ref": "#/components/schemas/ValidationError"},
            description="`after` is not a cursor of this feed, or both `after` and `latest`.",
        ),
        410: error_response(GONE),
    },
)
class ChangeFeedView(APIView):
    """Every committed change, in commit order: for mirrors and harvesters."""

    # Public, and the same answer for everyone: credentials are not even read, so a cache
    # may keep one copy whoever asks.
    authentication_classes = []
    permission_classes = [permissions.AllowAny]

    def get(self, request):
        query = ChangeFeedParameters(data=request.query_params)
        query.is_valid(raise_exception=True)
        if query.validated_data["latest"]:
            body = ChangePageSerializer({"results": [], "next": encode_cursor(newest_seq())})
            return Response(body.data, headers={"Cache-Control": LAST_PAGE_CACHE})
        limit = settings.FRUITCATALOG_CHANGES_PAGE_SIZE
        try:
            page = read_page(query.validated_data.get("after"), limit)
        except CursorGone:
            raise CursorGoneError from None
        body = ChangePageSerializer(
            {"results": page.entries, "next": encode_cursor(page.last_seq)}
        ).data
        cache = FULL_PAGE_CACHE if len(page.entries) == limit else LAST_PAGE_CACHE
        return Response(body, headers={"Cache-Control": cache})
