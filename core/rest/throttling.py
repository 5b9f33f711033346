"""Request rates: password guessing on the token endpoint, optional per-user upload rates.

The counters live in Django's cache (Redis when `REDIS_URL` is set, shared by every app
server). Rates are settings (`REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`, from the environment).
Failed logins on the login forms and the token endpoint are counted by django-axes, whose
lockout answer is `lockout_response`.
"""

import hashlib
import math

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.utils.html import escape
from django.utils.translation import gettext as _
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle


class LiveRateThrottle(SimpleRateThrottle):
    """DRF's throttle, with its rate read from the settings when used, not when imported."""

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class TokenAddressThrottle(LiveRateThrottle):
    """Token requests per client address."""

    scope = "token_address"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class TokenUsernameThrottle(LiveRateThrottle):
    """Token requests per username asked for, whatever the address (distributed guessing)."""

    scope = "token_username"

    def get_cache_key(self, request, view):
        username = request.data.get("username") if hasattr(request.data, "get") else None
        if not isinstance(username, str) or not username:
            return None  # the serializer refuses it; the address throttle still counts it
        # Hashed: a cache key of any characters, of a bounded length.
        ident = hashlib.sha256(username.casefold().encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


class UploadThrottle(LiveRateThrottle):
    """Uploads (POST, PUT) per user, off unless `FRUITCATALOG_UPLOAD_RATE_PER_USER` is set."""

    scope = "uploads"

    def allow_request(self, request, view):
        if request.method not in ("POST", "PUT"):
            return True
        return super().allow_request(request, view)

    def get_cache_key(self, request, view):
        if not request.user.is_authenticated:
            return None  # refused by the permission check anyway
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


def client_address(request) -> str:
    """The client's address as DRF's throttles see it (`NUM_PROXIES` hops from the right of
    `X-Forwarded-For` behind proxies, `REMOTE_ADDR` without); django-axes counts by it too."""
    return BaseThrottle().get_ident(request)


def cooloff_seconds() -> int:
    return math.ceil(settings.AXES_COOLOFF_TIME.total_seconds())


def lockout_response(request, original_response=None, credentials=None):
    """django-axes' answer to a locked-out client: 429 with `Retry-After`, JSON under /api/."""
    seconds = cooloff_seconds()
    message = _(
        "Too many failed login attempts from this address; try again in %(seconds)s seconds."
    ) % {"seconds": seconds}
    title = _("Too many login attempts")
    if request.path_info.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=429)
    else:
        response = HttpResponse(
            f"<!doctype html><title>{escape(title)}</title><p>{escape(message)}</p>",
            status=429,
        )
    response["Retry-After"] = str(seconds)
    return response


class ExportThrottle(LiveRateThrottle):
    """Exports built in full per client address (`FRUITCATALOG_EXPORT_RATE_PER_ADDRESS`): each
    reads the whole catalog. A conditional request answered 304 is not counted."""

    scope = "exports"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
