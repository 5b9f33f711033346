"""Byte reads answered in front of Django's handler (`fruitcatalog.fronts.ReadFront`).

A thumbnail's revalidation is the request card grids make most, and its answer is one query of
metadata. `ByteReadApplication` answers a GET or HEAD of a byte path with what the read needs
(the path's keywords, the host check, the read's one query) and hands every other request on
(to the list front, `fruitcatalog.listreads`, then Django), with every rule `ReadFront` keeps of
the Django stack. It answers as `ByteReadMiddleware` does where no front is installed (the test
client, a server given Django's own application): `ByteRead.respond()` — bytes, the JSON 404
for a row that is not there (or was replaced during the read), the 503 for a database that
cannot be reached — with `read_headers()` besides the security headers.
"""

from fruitcatalog.blobs.reads import READ_METHODS, match_byte_path, read_headers
from fruitcatalog.fronts import ReadFront


class ByteReadApplication(ReadFront):
    """WSGI: GET and HEAD of a byte path answered here; everything else by `application`."""

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if (
            environ["REQUEST_METHOD"] not in READ_METHODS
            or not path.startswith("/api/")
            or not path.isascii()  # Django re-decodes a non-ASCII path; a byte path is ASCII
        ):
            return self.application(environ, start_response)
        found = match_byte_path(path)
        if found is None:
            return self.application(environ, start_response)
        read, kwargs = found
        return self.serve(environ, start_response, lambda request: read.respond(request, kwargs))

    def own_headers(self) -> list[tuple[str, str]]:
        """CORS for any origin and `X-Frame-Options` (`read_headers`)."""
        return read_headers()
