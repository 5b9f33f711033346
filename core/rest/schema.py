"""The OpenAPI document: its view, and the hooks that add what drf-spectacular cannot infer.

Byte bodies are described next to the byte views, in `blobs.schema`.
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.renderers import OpenApiJsonRenderer
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerView,
)
from rest_framework.renderers import JSONRenderer

ERROR_SCHEMA = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
VALIDATION_ERROR_SCHEMA = {
    "type": "object",
    "description": "Messages per field; `non_field_errors` for errors of the whole body.",
    "additionalProperties": {
        "oneOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "object"},
            {"type": "string"},
        ]
    },
}

ERROR_DESCRIPTIONS = {
    "400": "Validation failed, or the body is malformed.",
    "401": "Authentication required (`WWW-Authenticate: Token`).",
    "403": "Authenticated but lacking the permission.",
    "404": "Not found.",
    "405": "Method not allowed.",
    "406": "Not acceptable.",
    "409": (
        "Conflict: the change would lose linked data, lost a race with another change, or a "
        "request with the same `Idempotency-Key` is still being processed."
    ),
    "413": (
        "The request body is larger than the limit: 5 MiB on upload routes, 1 MiB on every "
        "other route (the defaults of `FRUITCATALOG_MAX_UPLOAD_BYTES` and "
        "`FRUITCATALOG_MAX_BODY_BYTES`)."
    ),
    "415": "Unsupported media type.",
    "422": "The `Idempotency-Key` was used for another request (method, path or body).",
    "429": (
        "Too many requests: the token endpoint's rates, a login lockout after repeated failures, "
        "a per-user upload rate where one is configured, or the exports' rate per address; "
        "`Retry-After` says when to retry."
    ),
    "503": "The database is unreachable; `Retry-After` says when to retry.",
}
WRITE_METHODS = {"post", "put", "patch", "delete"}


def _error_response(code: str) -> dict:
    schema_ref = "ValidationError" if code == "400" else "Error"
    return {
        "description": ERROR_DESCRIPTIONS[code],
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema_ref}"}}},
    }


def error_response(description: str) -> OpenApiResponse:
    """An answer in DRF's error shape (`{"detail": ...}`) described for one operation: a status
    `add_error_responses` does not give it, or says too little of."""
    return OpenApiResponse({"$ref": "#/components/schemas/Error"}, description=description)


def canonical_paths(endpoints, **kwargs):
    """List paths in their canonical form, without the optional trailing slash."""
    return [
        (path.rstrip("/") if path != "/" else path, path_regex, method, callback)
        for path, path_regex, method, callback in endpoints
    ]


def _error_codes(path: str, method: str, operation: dict) -> list[str]:
    """The error statuses an operation can answer with."""
    if path.endswith("/health"):
        return ["405", "503"]
    codes = ["405", "404"] if method == "get" else ["405"]
    parameters = operation.get("parameters", [])
    if any(parameter["in"] == "query" for parameter in parameters):
        codes.append("400")
    is_public = operation.get("security") in (None, [], [{}])
    if method in WRITE_METHODS:
        codes += ["400"] if is_public else ["400", "401", "403"]
        if "{" in path:
            codes.append("404")
    if method == "delete":
        codes.append("409")
    if any(parameter["name"] == "Idempotency-Key" for parameter in parameters):
        codes += ["409", "422"]
    body_types = operation.get("requestBody", {}).get("content", {})
    if body_types or method in {"post", "put", "patch"}:
        codes += ["413", "415"]
    uploads = any(not kind.startswith("application/json") for kind in body_types)
    if path.endswith("/auth/token") or (method in WRITE_METHODS and uploads) or "/exports/" in path:
        codes.append("429")
    codes.append("503")
    return codes


def add_error_responses(result, generator, request, public):
    """Document the error responses of every operation in DRF's shapes; mark reads public."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("Error", ERROR_SCHEMA)
    schemas.setdefault("ValidationError", VALIDATION_ERROR_SCHEMA)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            for code in _error_codes(path, method, operation):
                responses.setdefault(code, _error_response(code))
            security = operation.get("security")
            # A read is public unless it documents its refusals (a curators' read).
            public_read = method == "get" and "401" not in responses
            if public_read and security is not None and {} not in security:
                security.append({})
    return result


class TokenScheme(OpenApiAuthenticationExtension):
    """The token scheme as clients use it: `Token <key>`, or `Bearer <key>`."""

    target_class = "core.rest.authentication.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": (
                "`Authorization: Token <key>` (or `Bearer <key>`), the key from "
                "`POST /api/v1/auth/token`."
            ),
        }


class SchemaView(SpectacularAPIView):
    """The OpenAPI document: YAML, or JSON with `?format=json` or `Accept: application/json`.

    Its errors are JSON like the API's.
    """

    def perform_content_negotiation(self, request, force=False):
        if request.method not in ("GET", "HEAD"):
            return JSONRenderer(), JSONRenderer.media_type
        if request.query_params.get("format") == "json":  # the API turns `format` off elsewhere
            return OpenApiJsonRenderer(), OpenApiJsonRenderer.media_type
        return super().perform_content_negotiation(request, force)


# The API's documentation pages load only the service's own files (drf-spectacular's sidecar).
# Their inline bootstrap scripts and styles and ReDoc's search worker (a blob) need the inline
# and blob sources; nothing may come from another host, so a bundle that reaches for a CDN is
# blocked and shows in the browser's console (ReDoc's page keeps its bundle's logo of Redocly's
# CDN from being asked for at all: core/templates/core/redoc.html).
DOCS_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
    "worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)


class DocsPageMixin:
    """A documentation page that may load nothing from another host (its CSP says so)."""

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response.headers["Content-Security-Policy"] = DOCS_CONTENT_SECURITY_POLICY
        return response


class SwaggerView(DocsPageMixin, SpectacularSwaggerView):
    """Swagger UI from the service's own static files."""


class RedocView(DocsPageMixin, SpectacularRedocView):
    """ReDoc from the service's own static files."""
