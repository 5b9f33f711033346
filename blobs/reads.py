"""The read of a byte path: one query of metadata, the bytes only for a GET that needs them.

Each byte path answers GET and HEAD with its `ByteRead`, a plain Django view behind the whole
middleware stack (`blobs.views.byte_view`). Speed comes from the shape of the read —
one indexed query of metadata, no bytes for a 304 or a HEAD — and from the caches in front:
versioned URLs are `immutable`, so browsers and `deploy/nginx.conf`'s cache keep them for good
and the service sees each version about once.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import QuerySet
from django.db.models.functions import Length
from django.http import HttpResponse

from blobs.content_types import extension_for
from blobs.models import StoredBytes
from blobs.responses import Blob, blob_response
from core.rest.exceptions import json_not_found


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
        """200, 304 or HEAD of the bytes the path names; the API's JSON 404 when there are none."""
        rows = self.rows(kwargs)
        specs = [spec for spec in (self.spec, self.fallback) if spec is not None]
        columns = ["pk", *(column for spec in specs for column in spec.metadata_fields)]
        if request.method == "HEAD":
            # A group without a size column: LENGTH() reads the stored value's size from its
            # header, not its bytes.
            sizes = {
                f"_{spec.name}_length": Length(spec.data_field) for spec in specs if not spec.sized
            }
            rows = rows.annotate(**sizes)
            columns += sizes
        row = next(iter(rows.values(*columns).order_by()[:1]), None)
        spec = next((spec for spec in specs if row and row[spec.column("sha256")]), None)
        if spec is None:
            return json_not_found(request)
        content_type = spec.fixed_content_type or row[spec.column("content_type")]
        stem = self.stem(kwargs)
        if spec.derived:
            stem = f"{stem}-{spec.prefix}"
        sha256 = row[spec.column("sha256")]
        blob = Blob(
            content_type=content_type,
            size=row.get(spec.column("size")) or row.get(f"_{spec.name}_length") or 0,
            sha256=sha256,
            filename=f"{stem}.{extension_for(content_type)}",
            load=lambda: read_bytes(rows.model, spec, row["pk"], sha256),
        )
        response = blob_response(request, blob)
        if response is None:  # deleted or replaced since its metadata was read
            return json_not_found(request)
        return response


def read_bytes(model, spec: StoredBytes, pk: int, sha256: str) -> bytes | None:
    """The bytes of row `pk` if they still have this hash; None if replaced or deleted since.

    Reading by id *and* hash means a read racing a replace never serves other bytes under the
    ETag it has just sent.
    """
    rows = model._base_manager.filter(pk=pk, **{spec.column("sha256"): sha256})
    data = rows.values_list(spec.data_field, flat=True).first()
    return bytes(data) if data else None
