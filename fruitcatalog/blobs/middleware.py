"""Request bodies sent without a Content-Length (chunked), read within the upload limit."""

import io

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
from django.http import JsonResponse

from fruitcatalog.exceptions import UploadTooLarge


class ChunkedBodyMiddleware:
    """Make a chunked request body readable, or answer 413 when it turns out over the limit.

    Django reads a body only as far as `Content-Length` says, so without one (chunked transfer
    encoding, which gunicorn decodes and marks with `wsgi.input_terminated`) it would see an empty
    body. This reads at most the upload limit + 1 byte and hands Django a body of known length.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        meta = request.META
        if (
            not meta.get("CONTENT_LENGTH")
            and meta.get("wsgi.input_terminated")
            and "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower()
        ):
            limit = settings.FRUITCATALOG_MAX_UPLOAD_BYTES
            try:
                body = meta["wsgi.input"].read(limit + 1)
            except Exception:  # the server's chunk parser: bad sizes, missing terminators, EOF
                return JsonResponse({"detail": "Malformed chunked request body."}, status=400)
            if len(body) > limit:
                return JsonResponse({"detail": UploadTooLarge(limit).detail}, status=413)
            meta["CONTENT_LENGTH"] = str(len(body))
            request._stream = LimitedStream(io.BytesIO(body), len(body))
        return self.get_response(request)
