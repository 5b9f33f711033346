"""The health check: liveness and database reachability, for load balancers and containers.

It answers within 2 s whatever the database does. The probe runs on a thread of its own, with
a connection of its own (opened for each probe) and a deadline, so a hung request connection
cannot hold it; the check waits
for the probe at most `PROBE_WAIT_SECONDS` and says 503 when the database did not confirm. While
one probe is still waiting on a hung database, checks wait for that one instead of piling up.
"""

import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as ProbeTimeout

from django.conf import settings
from django.db import DatabaseError, connection
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from core.db.deadlines import WATCHDOG

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


PROBE_WAIT_SECONDS = 1.2  # how long a health request waits for a probe's answer
PROBE_DEADLINE_SECONDS = 5.0  # a probe's own bound: its connection is cut after this
_probe_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="health-probe")
_probe_lock = threading.Lock()
_probe = None


def _database_answers() -> bool:
    """On the probe thread: whether a new connection runs `SELECT 1` within the probe's deadline.

    A new connection each time: what a request would need, and nothing left open between checks.
    """
    WATCHDOG.arm(PROBE_DEADLINE_SECONDS)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return True
    except DatabaseError:
        return False
    finally:
        WATCHDOG.disarm()
        connection.close()


def database_confirmed(wait: float = PROBE_WAIT_SECONDS) -> bool:
    """Whether the probe confirms the database within `wait` seconds."""
    global _probe
    with _probe_lock:
        if _probe is None or _probe.done():
            _probe = _probe_thread.submit(_database_answers)
        probe = _probe
    try:
        return probe.result(timeout=wait)
    except ProbeTimeout:
        return False


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
        # This request is done with its own connection: the probe has its own, and waiting for
        # it must not count against (and cut) this worker's healthy connection.
        WATCHDOG.disarm()
        if not database_confirmed():
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
