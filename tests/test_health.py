"""The health check, with the database up and down."""

from unittest import mock

import pytest
from django.conf import settings
from django.db import OperationalError, connections

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/health", "/health/", "/api/v1/health", "/api/v1/health/"])
def test_health_is_ok_when_the_database_answers(anon_client, path):
    response = anon_client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok", "database": "ok", "version": settings.VERSION}


@pytest.mark.parametrize("path", ["/health", "/api/v1/health"])
def test_health_is_503_when_the_database_is_unreachable(anon_client, path):
    refused = OperationalError("connection to server at 127.0.0.1 refused")
    # The probe runs on a thread of its own, with its own connection: refuse them all.
    with mock.patch.object(type(connections["default"]), "cursor", side_effect=refused):
        response = anon_client.get(path)
    assert response.status_code == 503
    assert response.json() == {
        "status": "error",
        "database": "unavailable",
        "version": settings.VERSION,
    }


def test_health_ignores_credentials(anon_client):
    anon_client.credentials(HTTP_AUTHORIZATION="Token garbage")
    assert anon_client.get("/health").status_code == 200


@pytest.mark.parametrize("accept", ["text/html", "text/plain", "*/*", "application/xml"])
def test_health_answers_json_whatever_the_prober_accepts(anon_client, accept):
    response = anon_client.get("/health", HTTP_ACCEPT=accept)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
