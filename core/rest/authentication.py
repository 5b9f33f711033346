"""How API clients authenticate (a module of its own: DRF loads it while importing its views)."""

from django.utils.translation import gettext as _
from rest_framework import authentication, exceptions


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication that also takes `Bearer <key>`, as most API clients send.

    Generated clients (openapi-python-client's `AuthenticatedClient`) and HTTP tools default to
    the Bearer scheme; refusing it answered a valid key with "credentials were not provided".
    401s still ask for `Token` (`WWW-Authenticate: Token`).
    """

    keywords = (b"token", b"bearer")

    def authenticate(self, request):
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower() not in self.keywords:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header: send `Authorization: Token <key>` (or `Bearer <key>`).")
            )
        try:
            key = parts[1].decode()
        except UnicodeError:
            message = _("Invalid token header: the key is not text.")
            raise exceptions.AuthenticationFailed(message) from None
        return self.authenticate_credentials(key)
