"""API tokens: a username and password exchanged for the user's token."""

from drf_spectacular.utils import extend_schema
from rest_framework.authtoken.views import ObtainAuthToken


class TokenView(ObtainAuthToken):
    """Exchange a username and password for the user's API token (public)."""

    @extend_schema(
        summary="Get an API token",
        description="Wrong credentials answer 400 with `non_field_errors`.",
        auth=[],
    )
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)
