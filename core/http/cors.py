"""CORS rules beyond django-cors-headers' settings: public reads answer any origin."""

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def allow_public_reads(sender, request, **kwargs) -> bool:
    """Any origin may read under /api/ (no credentials are allowed); writes need a listed origin.

    A preflight names the method it asks for; a read's preflight is a read.
    """
    if not request.path_info.startswith("/api/"):
        return False
    method = request.method
    if method == "OPTIONS":
        method = request.headers.get("Access-Control-Request-Method", "OPTIONS").upper()
    return method in READ_METHODS
