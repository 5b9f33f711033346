"""The read path of byte endpoints: plain Django views, one indexed query per answer.

Byte reads are the requests a card grid makes most (two dozen thumbnails per page view), so they
skip DRF's dispatch: no content negotiation, no authentication (reads are public, and nothing here
touches `request.user`, so neither the session nor a token is looked up), no model instances.
A read is one query of the row's metadata — plus its bytes when a body will be sent and the client
holds no copy to revalidate — and `blob_response` answers 200, 304 or HEAD as every byte endpoint
does. Writes and `OPTIONS` on the same path go to the DRF view (`reads_then`).
"""

import functools
from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import QuerySet
from django.db.models.functions import Length
from django.http import HttpResponse, JsonResponse

from fruitcatalog.blobs.content_types import extension_for
from fruitcatalog.blobs.models import StoredBytes
from fruitcatalog.blobs.responses import Blob, blob_response, column_loader

READ_METHODS = frozenset({"GET", "HEAD"})


def not_found() -> JsonResponse:
    """The API's 404 body."""
    return JsonResponse({"detail": "Not found."}, status=404)


@dataclass(frozen=True)
class ByteRead:
    """How to find one kind of stored bytes from a URL: the row, its byte group, its file name.

    `rows(kwargs)` filters to the one row the path names (parent included, so a path with the
    wrong parent is a 404); `stem(kwargs)` names the file without extension; `fallback` is served
    when the row has no bytes in `spec` (a thumbnail that was never made: the image itself).
    """

    rows: Callable[[dict], QuerySet]
    spec: StoredBytes
    stem: Callable[[dict], str]
    fallback: StoredBytes | None = None

    def __call__(self, request, **kwargs) -> HttpResponse:
        rows = self.rows(kwargs)
        # A body is sent unless the client may hold these bytes (If-None-Match) or asks for HEAD:
        # then the bytes come in the same query as their metadata.
        send_body = request.method == "GET" and "HTTP_IF_NONE_MATCH" not in request.META
        for spec in (self.spec, self.fallback):
            if spec is None:
                break
            row = _read(rows, spec, with_data=send_body, with_size=request.method == "HEAD")
            if row is None:
                return not_found()
            if row["sha256"]:
                return blob_response(request, self._blob(rows, spec, row, kwargs))
        return not_found()

    def _blob(self, rows, spec: StoredBytes, row: dict, kwargs: dict) -> Blob:
        content_type = row.get("content_type") or spec.fixed_content_type
        stem = self.stem(kwargs)
        if spec.derived:
            stem = f"{stem}-{spec.prefix}"
        data = row.get("data")
        if data is not None:
            load = functools.partial(bytes, data)
        else:
            load = column_loader(rows, row["pk"], spec.data_field)
        return Blob(
            content_type=content_type,
            size=row.get("size") or 0,
            sha256=row["sha256"],
            filename=f"{stem}.{extension_for(content_type)}",
            load=load,
        )


def _read(rows: QuerySet, spec: StoredBytes, *, with_data: bool, with_size: bool) -> dict | None:
    """The row's metadata of one byte group (and its bytes), under the group's plain names."""
    columns = {"pk": "pk", "sha256": spec.column("sha256")}
    if spec.fixed_content_type is None:
        columns["content_type"] = spec.column("content_type")
    if spec.sized:
        columns["size"] = spec.column("size")
    if with_data:
        columns["data"] = spec.data_field
    values = rows.values(*columns.values())
    if with_size and not spec.sized:
        # LENGTH() reads the stored size of the value, not its bytes.
        values = rows.annotate(_size=Length(spec.data_field)).values(*columns.values(), "_size")
        columns["size"] = "_size"
    row = next(iter(values.order_by()[:1]), None)
    if row is None:
        return None
    return {name: row[column] for name, column in columns.items()}


def reads_then(read: Callable, write: Callable) -> Callable:
    """One view for a byte path: `GET`/`HEAD` answered by `read`, every other method by `write`.

    `write` is the DRF view of the path (with its `get` too), whose attributes are kept, so
    the OpenAPI schema and CSRF exemption see the DRF view.
    """

    @functools.wraps(write)
    def view(request, *args, **kwargs):
        if request.method in READ_METHODS:
            return read(request, **kwargs)
        return write(request, *args, **kwargs)

    return view
