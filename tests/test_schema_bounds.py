"""What the schema states of a parameter or an answer, the API does: the bounds of `limit` and
of an `Idempotency-Key`, a characteristic's 409 when a write removes a state in use."""

import pytest

from catalog.models import FruitType
from identification.models import Characteristic

pytestmark = pytest.mark.django_db

ERROR = {"$ref": "#/components/schemas/Error"}


@pytest.fixture
def schema(anon_client):
    return anon_client.get("/api/v1/schema", QUERY_STRING="format=json").json()


def parameter(operation: dict, name: str) -> dict:
    (found,) = [p for p in operation["parameters"] if p["name"] == name]
    return found


def test_identifys_limit_states_its_bounds_and_default(schema, anon_client):
    limit = parameter(schema["paths"]["/api/v1/identify"]["get"], "limit")["schema"]

    assert limit == {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}
    for value, status in ((0, 400), (1, 200), (50, 200), (51, 400)):
        response = anon_client.get("/api/v1/identify", {"type": FruitType.APPLE, "limit": value})
        assert response.status_code == status, value


def test_every_idempotency_key_states_its_format(schema, curator_client):
    keys = [
        parameter(operation, "Idempotency-Key")["schema"]
        for operations in schema["paths"].values()
        for operation in operations.values()
        if any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", []))
    ]
    assert len(keys) == 5  # fruits, publications, both image uploads, the import
    key = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"}
    assert all(found == key for found in keys)

    def create(idempotency_key: str) -> int:
        body = {"name": "Boskoop", "type": "apple"}
        return curator_client.post(
            "/api/v1/fruits", body, format="json", HTTP_IDEMPOTENCY_KEY=idempotency_key
        ).status_code

    assert create("!" + "~" * 254) == 201
    assert create("a" * 256) == 400
    assert create("with space") == 400


@pytest.mark.parametrize("method", ["put", "patch"])
def test_a_characteristic_write_that_removes_a_state_in_use_is_a_documented_409(
    schema, curator_client, fruit_factory, method
):
    characteristic = Characteristic.objects.get(code="fruit_size")
    used = characteristic.states.order_by("value").first()
    shows_it = {"characteristics": [{"code": "fruit_size", "values": [used.value]}]}
    fruit = fruit_factory(type="apple")
    response = curator_client.patch(f"/api/v1/fruits/{fruit.pk}", shows_it, format="json")
    assert response.status_code == 200
    path = f"/api/v1/characteristics/{characteristic.pk}"
    body = curator_client.get(path).json()
    body["states"] = [state for state in body["states"] if state["value"] != used.value]

    response = getattr(curator_client, method)(path, body, format="json")

    assert response.status_code == 409
    assert set(response.json()) == {"detail"}
    conflict = schema["paths"]["/api/v1/characteristics/{id}"][method]["responses"]["409"]
    assert conflict["content"]["application/json"]["schema"] == ERROR
    assert "in use" in conflict["description"]
