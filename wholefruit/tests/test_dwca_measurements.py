"""The Darwin Core Archive's MeasurementOrFact extension: the characteristics fruits show."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from dwca.read import DwCAReader

from core.testing.streams import body
from identification.models import Characteristic
from identification.services import characteristic_save
from identification.tests.helpers import describe
from publications.models import Publication
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db

DWCA = "/api/v1/exports/dwca.zip"
DWC = "http://rs.tdwg.org/dwc/terms/"
MEASUREMENT = f"{DWC}MeasurementOrFact"


def read_archive(client, tmp_path) -> dict:
    """The archive's core rows by id, each with its measurements by type."""
    path = tmp_path / "dwca.zip"
    path.write_bytes(body(client.get(DWCA)))
    found = {}
    with DwCAReader(str(path)) as archive:
        assert MEASUREMENT in {extension.type for extension in archive.descriptor.extensions}
        for row in archive:
            found[row.id] = {
                extension.data[f"{DWC}measurementType"]: extension.data
                for extension in row.extensions
                if extension.rowtype == MEASUREMENT
            }
    return found


def test_every_characteristic_a_fruit_shows_is_a_measurement_gbifs_reader_reads(
    anon_client, fruit_factory, tmp_path
):
    topaz = fruit_factory(name="Topaz", catalog_number=1)
    pomona = Publication.objects.create(title="Pomona", authors="Lucas", year=1875)
    publication_link_fruit(publication=pomona, fruit=topaz)
    describe(
        topaz,
        {"fruit_size": [7, 5], "shape": [3]},
        fruit_size={"source_publication": pomona.pk, "pages": "112", "note": "In good years."},
    )
    bare = fruit_factory(name="Hedelfinger", type="cherry", catalog_number=2)
    rows = read_archive(anon_client, tmp_path)
    page = f"http://testserver/fruits/{topaz.pk}/"
    measurements = rows[page]
    assert set(measurements) == {"Fruit: size", "Fruit: shape"}
    size = measurements["Fruit: size"]
    assert size[f"{DWC}measurementID"] == f"{page}#fruit_size"
    assert size[f"{DWC}measurementValue"] == "medium; large"
    assert size[f"{DWC}measurementUnit"] == ""
    assert size[f"{DWC}measurementMethod"] == "UPOV TG/14/10; UPOV TG/15/3"
    assert size[f"{DWC}measurementRemarks"] == (
        "In good years. Source: Lucas (1875): Pomona, p. 112."
    )
    assert measurements["Fruit: shape"][f"{DWC}measurementValue"] == "globose"
    assert measurements["Fruit: shape"][f"{DWC}measurementRemarks"] == ""
    assert rows[f"http://testserver/fruits/{bare.pk}/"] == {}


def test_the_measurements_cost_two_queries_a_chunk_whatever_the_number_of_values(
    anon_client, fruit_factory
):
    def archive_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            body(anon_client.get(DWCA))
        return len(queries.captured_queries)

    describe(fruit_factory(name="Fruit 0", catalog_number=100), {"fruit_size": [5]})
    few = archive_queries()
    for number in range(1, 31):
        fruit = fruit_factory(name=f"Fruit {number}", catalog_number=number)
        describe(fruit, {"fruit_size": [number % 5 * 2 + 1], "shape": [1, 2], "stalk_length": [3]})
    assert archive_queries() == few


def test_the_archive_is_dated_by_its_characteristics_their_states_and_values(
    anon_client, fruit_factory
):
    topaz = fruit_factory(name="Topaz", catalog_number=1)
    describe(topaz, {"fruit_size": [5]})

    def etag() -> str:
        response = anon_client.get(DWCA)
        body(response)
        return response["ETag"]

    first = etag()
    assert anon_client.get(DWCA, HTTP_IF_NONE_MATCH=first).status_code == 304
    describe(topaz, {"fruit_size": [5, 7]})
    second = etag()
    assert second != first
    # A state's label is the measurement's value: renaming it changes the archive.
    size = Characteristic.objects.get(code="fruit_size")
    states = [
        {"value": state.value, "label": state.label.upper(), "image_id": None}
        for state in size.states.all()
    ]
    characteristic_save(characteristic=size, fruit_types=size.type_list, states=states)
    assert etag() != second
