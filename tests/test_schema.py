"""The OpenAPI schema: valid, canonical, and honoured by every operation (schemathesis)."""

import re

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from schemathesis import checks

from fruitcatalog.wsgi import application

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yaml"))


def test_schema_lists_canonical_paths_enums_errors_and_auth(anon_client):
    response = anon_client.get("/api/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    paths = schema["paths"]
    assert "/api/v1/fruits" in paths and "/api/v1/fruits/{id}" in paths
    assert "/health" in paths and "/api/v1/health" in paths
    assert not any(path.endswith("/") for path in paths)
    components = schema["components"]
    assert components["schemas"]["FruitTypeEnum"]["enum"][:2] == ["apple", "pear"]
    assert {"tokenAuth", "cookieAuth"} <= set(components["securitySchemes"])
    create = paths["/api/v1/fruits"]["post"]["responses"]
    assert {"201", "400", "401", "403"} <= set(create)


@pytest.mark.parametrize("path", ["/api/v1/docs", "/api/v1/redoc"])
def test_docs_are_served_from_local_static_files(anon_client, path):
    response = anon_client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    # Every asset the page names is the service's own: no scheme, no other host.
    assets = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    assert assets
    assert not [url for url in assets if re.match(r"(https?:)?//", url)]
    assert "googleapis" not in html
    # What the bundles fetch themselves (ReDoc's logo did, from a CDN) is blocked by the CSP.
    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "img-src 'self' data:" in policy
    assert "http" not in policy


@pytest.fixture
def api_schema(db, fruit_factory, add_image):
    fruit = fruit_factory(name="Boskoop", catalog_number=1, synonyms=["Belle de Boskoop"])
    add_image(fruit)
    # Requests go through the real WSGI handler, whose end-of-request hook would close the
    # connection holding the test's transaction; Django's own test client unhooks it the same way.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/v1/schema", application)
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("api_schema")

FUZZ_SETTINGS = hypothesis_settings(
    max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None
)


# The schema's own rules: no 5xx, documented statuses, content types, headers and bodies.
# (Schema-valid input can still break a business rule, e.g. wrong credentials or a duplicate
# synonym, so "valid data is accepted" is not among them.)
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_headers_conformance,
    checks.response_schema_conformance,
]


@schema.parametrize()
@FUZZ_SETTINGS
def test_every_operation_anonymously(case):
    case.call_and_validate(checks=CHECKS)


@schema.parametrize()
@FUZZ_SETTINGS
def test_every_operation_as_a_curator(case, curator):
    token, _ = Token.objects.get_or_create(user=curator)
    case.call_and_validate(headers={"Authorization": f"Token {token.key}"}, checks=CHECKS)


def test_integer_query_parameters_state_their_bounds(anon_client):
    schema = anon_client.get("/api/v1/schema", QUERY_STRING="format=json").json()
    parameters = {
        parameter["name"]: parameter
        for parameter in schema["paths"]["/api/v1/fruits"]["get"]["parameters"]
    }
    assert parameters["catalog_number"]["schema"]["minimum"] == 1
    assert parameters["page"]["schema"]["minimum"] == 1
    assert "100" in parameters["page_size"]["description"]
    year = next(
        parameter
        for parameter in schema["paths"]["/api/v1/publications"]["get"]["parameters"]
        if parameter["name"] == "year"
    )
    assert (year["schema"]["minimum"], year["schema"]["maximum"]) == (1400, 2100)


def test_the_schema_is_yaml_or_json_on_request(anon_client):
    assert anon_client.get("/api/v1/schema").content.startswith(b"openapi:")
    for extra in ({"QUERY_STRING": "format=json"}, {"HTTP_ACCEPT": "application/json"}):
        assert anon_client.get("/api/v1/schema", **extra).json()["openapi"].startswith("3.")


def test_methods_the_schema_does_not_allow_answer_json_405(anon_client):
    response = anon_client.post("/api/v1/schema")
    assert response.status_code == 405
    assert response["Content-Type"] == "application/json"
    assert "detail" in response.json()


def test_schema_documents_what_the_api_answers(anon_client):
    accept = "application/vnd.oai.openapi+json"
    schema = anon_client.get("/api/v1/schema", HTTP_ACCEPT=accept).json()
    token = schema["paths"]["/api/v1/auth/token"]["post"]
    assert "401" not in token["responses"] and "403" not in token["responses"]
    report = schema["components"]["schemas"]["BackfillReport"]
    assert set(report["required"]) == {
        "fruit_images",
        "publication_fruit_images",
        "publication_covers",
        "remaining",
    }
    created = schema["paths"]["/api/v1/fruits"]["post"]["responses"]["201"]
    assert created["content"]["application/json"]["schema"]["$ref"].endswith("/FruitDetail")


def test_the_creating_posts_document_idempotency_keys_and_their_answers(anon_client):
    paths = anon_client.get("/api/v1/schema", {"format": "json"}).json()["paths"]
    creates = [
        "/api/v1/fruits",
        "/api/v1/publications",
        "/api/v1/fruits/{id}/images",
        "/api/v1/publications/{id}/fruit-images",
    ]
    for path in creates:
        operation = paths[path]["post"]
        headers = [p["name"] for p in operation["parameters"] if p["in"] == "header"]
        assert headers == ["Idempotency-Key"], path
        assert {"400", "409", "422"} <= set(operation["responses"]), path
        assert "Idempotent-Replayed" in operation["responses"]["201"]["headers"], path
    # Other writes take no key.
    assert "parameters" not in paths["/api/v1/fruits/{id}"]["put"] or all(
        p["name"] != "Idempotency-Key" for p in paths["/api/v1/fruits/{id}"]["put"]["parameters"]
    )


def test_the_fruit_list_documents_names_matched_name_and_suggestions(anon_client):
    schema = anon_client.get("/api/v1/schema", {"format": "json"}).json()
    schemas = schema["components"]["schemas"]
    fruit = schemas["Fruit"]["properties"]
    assert fruit["names"]["items"]["$ref"] == "#/components/schemas/Name"
    assert set(schemas["Name"]["properties"]) == {"name", "kind", "language", "note"}
    assert "misapplied" in str(schemas)
    assert fruit["matched_name"]["nullable"] is True
    envelope = schemas["PaginatedFruitList"]
    assert "suggestions" in envelope["required"]
    assert envelope["properties"]["suggestions"]["items"]["required"] == ["name", "fruit_id"]
