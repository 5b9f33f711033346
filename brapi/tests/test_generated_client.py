"""A client nobody here wrote reads the BrAPI calls: `openapi-python-client` generates one from
BrAPI's own OpenAPI document (the specification's pieces at V2.1, trimmed to the calls served:
`spec/regenerate.py`, which says why), with its default settings, and reads germplasm, pedigree,
attributes and the rest through it, its models parsing every answer.

The client talks to the service in-process through httpx's WSGI transport, on the test's own
database connection.
"""

import importlib
from pathlib import Path

import httpx
import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from core.testing.generated import generated_client

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

DOCUMENT = Path(__file__).parent / "spec" / "brapi-v2.1.json"
PACKAGE = "brapi_client"
BASE_URL = "http://testserver/brapi/v2"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("brapi-generated")
    with generated_client(DOCUMENT, folder, PACKAGE) as done:
        yield done


def call(name: str):
    """A generated operation module, e.g. `call("germplasm.get_germplasm")`."""
    return importlib.import_module(f"{PACKAGE}.api.{name}")


class InProcess(httpx.WSGITransport):
    """httpx's WSGI transport on Django's handler, keeping the test's database connection: as
    Django's test client does, a request neither opens nor closes it (`close_old_connections`
    is disconnected for each request, since the test client connects it again after its own,
    and connected again when the test ends), so the service sees the test's transaction."""

    def __init__(self):
        super().__init__(app=WSGIHandler())

    def handle_request(self, request):
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        return super().handle_request(request)


@pytest.fixture
def client(generated):
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "Warning" not in output and "omitted" not in output, output
    client_module = importlib.import_module(f"{PACKAGE}.client")
    client = client_module.Client(base_url=BASE_URL, raise_on_unexpected_status=True)
    try:
        yield client.set_httpx_client(httpx.Client(base_url=BASE_URL, transport=InProcess()))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_a_generated_brapi_client_reads_germplasm_pedigree_and_attributes(client, described):
    fruits = described["fruits"]
    jonagold = fruits["Jonagold"]

    listed = call("germplasm.get_germplasm").sync(client=client, common_crop_name="apple")
    assert listed.metadata.pagination.total_count == 7
    assert [g.germplasm_name for g in listed.result.data][:3] == [
        "Golden Delicious",
        "Jonathan",
        "Jonagold",
    ]
    one = call("germplasm.get_germplasm_germplasm_db_id").sync(
        germplasm_db_id=str(jonagold.pk), client=client
    )
    assert (one.result.accession_number, one.result.genus, one.result.species) == (
        "3",
        "Malus",
        "domestica",
    )
    assert [(s.synonym, s.type_) for s in one.result.synonyms] == [
        ("Jonagold Apfel", "translation"),
        ("Jonnie", "trade_name"),
    ]
    passport = call("germplasm.get_germplasm_germplasm_db_id_mcpd").sync(
        germplasm_db_id=str(jonagold.pk), client=client
    )
    assert passport.result.ancestral_data == "Golden Delicious/Jonathan"
    models = importlib.import_module(f"{PACKAGE}.models")
    found = call("germplasm.post_search_germplasm").sync(
        client=client, body=models.GermplasmSearchRequest(synonyms=["Cox"])
    )
    assert [g.germplasm_name for g in found.result.data] == ["Cox's Orange Pippin"]

    pedigree = call("pedigree.get_pedigree").sync(
        client=client, germplasm_db_id=str(jonagold.pk), include_parents=True
    )
    (node,) = pedigree.result.data
    assert [(p.germplasm_name, p.parent_type.value) for p in node.parents] == [
        ("Golden Delicious", "FEMALE"),
        ("Jonathan", "MALE"),
    ]
    assert [(p.germplasm_name, p.parent_type.value) for p in node.progeny] == [
        ("Red Jonagold", "CLONAL")
    ]

    attributes = call("germplasm_attributes.get_attributes").sync(
        client=client, common_crop_name="apple"
    )
    size = next(a for a in attributes.result.data if a.attribute_db_id == str(described["size"].pk))
    assert size.scale.data_type.value == "Ordinal"
    assert [c.label for c in size.scale.valid_values.categories][:2] == ["very small", "small"]
    assert size.method.bibliographical_reference == "UPOV TG/14/9, 5"
    values = call("germplasm_attribute_values.get_attributevalues").sync(
        client=client, germplasm_db_id=str(jonagold.pk)
    )
    assert [v.value for v in values.result.data] == ["5", "7"]

    images = call("images.get_images").sync(client=client)
    assert images.result.data[0].additional_info["germplasmDbId"] == str(jonagold.pk)
    crops = call("common_crop_names.get_commoncropnames").sync(client=client)
    assert crops.result.data == ["apple", "berry", "cherry", "pear"]
    info = call("server_info.get_serverinfo").sync(client=client)
    assert len(info.result.calls) == 12
