"""CORS rules beyond django-cors-headers' settings: public reads answer any origin."""

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# BrAPI's searches (`POST /brapi/v2/search/...`) are reads sent as a POST.
BRAPI_SEARCH = "/brapi/v2/search/"


def allow_public_reads(sender, request, **kwargs) -> bool:
    """Any origin may read under /api/ and /brapi/ (no credentials are allowed); writes need a
    listed origin.

    A preflight names the method it asks for; a read's preflight is a read.
    """
    path = request.path_info
    if not path.startswith(("/api/", "/brapi/")):
        return False
    method = request.method
    if method == "OPTIONS":
        method = request.headers.get("Access-Control-Request-Method", "OPTIONS").upper()
    return method in READ_METHODS or (method == "POST" and path.startswith(BRAPI_SEARCH))
