"""The health check: liveness and database reachability, for load balancers and containers."""

from django.conf import settings
from django.db import DatabaseError, connection
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

HEALTH_BODY = inline_serializer(
    "Health",
    fields={
        "status": serializers.ChoiceField(choices=["ok", "error"]),
        "database": serializers.ChoiceField(choices=["ok", "unavailable"]),
        "version": serializers.CharField(),
    },
)

HEALTH_RESPONSES = {
    200: HEALTH_BODY,
    503: OpenApiResponse(HEALTH_BODY, description="The database is unreachable."),
}


class HealthView(APIView):
    """Liveness and database reachability, for load balancers and container health checks."""

    permission_classes = [AllowAny]
    authentication_classes = []
    renderer_classes = [JSONRenderer]

    def perform_content_negotiation(self, request, force=False):
        # JSON whatever the prober accepts: a health check answering 406 would read as "down".
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        operation_id="api_health",
        summary="Health check",
        responses=HEALTH_RESPONSES,
        auth=[],
    )
    def get(self, request):
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
        except DatabaseError:
            return Response(
                {"status": "error", "database": "unavailable", "version": settings.VERSION},
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
            )
        return Response({"status": "ok", "database": "ok", "version": settings.VERSION})


class RootHealthView(HealthView):
    """The same health check at /health, outside the API prefix."""

    @extend_schema(
        operation_id="health", summary="Health check", responses=HEALTH_RESPONSES, auth=[]
    )
    def get(self, request):
        return super().get(request)
