"""API tokens: a username and password exchanged for the user's token; revoked with the password."""

from drf_spectacular.utils import extend_schema
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser

from core.rest.parsers import SafeJSONParser
from core.rest.throttling import TokenAddressThrottle, TokenUsernameThrottle


class TokenView(ObtainAuthToken):
    """Exchange a username and password for the user's API token (public)."""

    parser_classes = [SafeJSONParser, FormParser, MultiPartParser]
    throttle_classes = [TokenAddressThrottle, TokenUsernameThrottle]

    def get_serializer_context(self):
        # django-axes marks a locked-out login on the Django request, which its middleware reads.
        return {**super().get_serializer_context(), "request": self.request._request}

    @extend_schema(
        summary="Get an API token",
        description=(
            "Wrong credentials answer 400 with `non_field_errors`. Guessing is limited: at most "
            "`FRUITCATALOG_TOKEN_RATE_PER_ADDRESS` requests per client address (20/minute by "
            "default) and `FRUITCATALOG_TOKEN_RATE_PER_USERNAME` per username (10/minute), and "
            "after `FRUITCATALOG_LOGIN_FAILURE_LIMIT` failed logins (10) from one address, every "
            "login from it, this endpoint's and the login forms', answers 429 for "
            "`FRUITCATALOG_LOGIN_COOLOFF_SECONDS` (900), the right password included. A 429 "
            "carries `Retry-After`."
        ),
        # The form encodings work too (the browsable API's form), but JSON is what clients send;
        # one declared body keeps generated clients simple.
        request={"application/json": AuthTokenSerializer},
        auth=[],
    )
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)


def revoke_tokens_on_password_change(sender, instance, raw=False, **kwargs):
    """A user's API tokens stop working when the password changes (not on a hash upgrade).

    `set_password()` remembers the new raw password until the save; Django's hash upgrade on
    login clears it first, as it is no change of password.
    """
    if raw or instance.pk is None or getattr(instance, "_password", None) is None:
        return
    Token.objects.filter(user_id=instance.pk).delete()
