"""Open exports: the fruits as CSV (imports back unchanged) and a Darwin Core Archive."""

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from dwca.read import DwCAReader

from catalog.exports import CSV_COLUMNS
from catalog.models import Fruit, FruitImage
from core.testing.media import make_object_png
from core.testing.queries import selected_blob_columns
from core.testing.streams import body
from publications.models import Publication
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db

CSV = "/api/v1/exports/fruits.csv"
DWCA = "/api/v1/exports/dwca.zip"


def csv_rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(body(response).decode())))


@pytest.fixture
def catalog(fruit_factory):
    gravensteiner = fruit_factory(
        name="Gravensteiner", catalog_number=2, synonyms=["Grafensteiner"]
    )
    boskoop = fruit_factory(name="Schöner aus Boskoop", catalog_number=1)
    cherry = fruit_factory(name="Hedelfinger", type="cherry", catalog_number=3)
    FruitImage.objects.create(
        fruit=gravensteiner,
        data=make_object_png(),
        creator="Eva Obst",
        license="CC-BY-4.0",
        alt_text="A striped apple",
    )
    publication = Publication.objects.create(
        title="Deutschlands Obstsorten", authors="Müller", year=1905
    )
    publication_link_fruit(
        publication=publication,
        fruit=gravensteiner,
        citation={"pages": "112", "plate": "IV", "is_first_description": True},
    )
    return {"gravensteiner": gravensteiner, "boskoop": boskoop, "cherry": cherry}


def test_the_csv_lists_every_fruit_in_catalog_order_with_its_columns(anon_client, catalog):
    response = anon_client.get(CSV)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="fruits.csv"'
    rows = csv_rows(response)
    assert [row["name"] for row in rows] == ["Schöner aus Boskoop", "Gravensteiner", "Hedelfinger"]
    # The characteristics' `char:<code>` columns follow (identification/tests/test_columns.py).
    assert list(rows[1])[: len(CSV_COLUMNS)] == CSV_COLUMNS
    assert {column: rows[1][column] for column in CSV_COLUMNS} | {"updated_at": "…"} == {
        "catalog_number": "2",
        "name": "Gravensteiner",
        "type": "apple",
        "synonyms": "Grafensteiner",
        "image_count": "1",
        "url": f"http://testserver/fruits/{catalog['gravensteiner'].pk}/",
        "updated_at": "…",
    }
    assert rows[1]["updated_at"].endswith("Z")


def test_the_csv_takes_the_lists_filters(anon_client, catalog):
    by_type = csv_rows(anon_client.get(CSV, {"type": "cherry"}))
    assert [row["name"] for row in by_type] == ["Hedelfinger"]
    searched = csv_rows(anon_client.get(CSV, {"search": "grafenstein"}))
    assert [row["name"] for row in searched] == ["Gravensteiner"]
    bad = anon_client.get(CSV, {"type": "appel"})
    assert bad.status_code == 400 and bad["Content-Type"] == "application/json"
    assert "type" in bad.json()


def test_an_exported_csv_imports_back_unchanged(anon_client, curator_client, catalog):
    exported = body(anon_client.get(CSV))
    before = list(Fruit.objects.with_names().values_list("catalog_number", "name", "type"))
    response = curator_client.post("/api/v1/imports/fruits", exported, content_type="text/csv")
    assert response.json() == {
        "dry_run": False,
        "created": 0,
        "updated": 0,
        "unchanged": 3,
        "errors": [],
        "batch": None,
    }
    assert list(Fruit.objects.with_names().values_list("catalog_number", "name", "type")) == before


def test_a_conditional_request_is_a_304_until_something_changes(anon_client, catalog):
    first = anon_client.get(CSV)
    etag, modified = first["ETag"], first["Last-Modified"]
    with CaptureQueriesContext(connection) as queries:
        again = anon_client.get(CSV, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert len(queries.captured_queries) <= 4  # the newest change: an index probe a table
    assert anon_client.get(CSV, HTTP_IF_MODIFIED_SINCE=modified).status_code == 304
    # Another filter is another file.
    assert anon_client.get(CSV, {"type": "apple"}, HTTP_IF_NONE_MATCH=etag).status_code == 200
    # A deletion leaves no row to date it: the triggers' stamp does.
    catalog["cherry"].delete()
    assert anon_client.get(CSV, HTTP_IF_NONE_MATCH=etag).status_code == 200
    etag = anon_client.get(CSV)["ETag"]
    FruitImage.objects.get().delete()
    assert anon_client.get(CSV, HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_the_darwin_core_archive_reads_in_gbifs_reader(anon_client, catalog, tmp_path):
    response = anon_client.get(DWCA)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    path = tmp_path / "dwca.zip"
    path.write_bytes(body(response))
    gravensteiner = f"http://testserver/fruits/{catalog['gravensteiner'].pk}/"
    with DwCAReader(str(path)) as archive:
        assert archive.descriptor.core.type == "http://rs.tdwg.org/dwc/terms/Taxon"
        assert {extension.type for extension in archive.descriptor.extensions} == {
            "http://rs.gbif.org/terms/1.0/VernacularName",
            "http://rs.gbif.org/terms/1.0/Multimedia",
            "http://rs.gbif.org/terms/1.0/Reference",
            "http://rs.tdwg.org/dwc/terms/MeasurementOrFact",  # test_dwca_measurements.py
        }
        rows = {row.id: row for row in archive}
        assert len(rows) == 3
        taxon = rows[gravensteiner]
        dwc = "http://rs.tdwg.org/dwc/terms/"
        dc = "http://purl.org/dc/terms/"
        assert taxon.data[f"{dwc}scientificName"] == "Malus domestica 'Gravensteiner'"
        assert taxon.data[f"{dwc}taxonRank"] == "cultivar"
        cherry = rows[f"http://testserver/fruits/{catalog['cherry'].pk}/"]
        assert cherry.data[f"{dwc}scientificName"] == "Prunus 'Hedelfinger'"  # two species
        extensions = {extension.rowtype: extension for extension in taxon.extensions}
        name = extensions["http://rs.gbif.org/terms/1.0/VernacularName"]
        assert name.data[f"{dwc}vernacularName"] == "Grafensteiner"
        image = extensions["http://rs.gbif.org/terms/1.0/Multimedia"]
        assert image.data[f"{dc}format"] == "image/png"
        assert image.data[f"{dc}creator"] == "Eva Obst"
        assert image.data[f"{dc}license"] == "https://creativecommons.org/licenses/by/4.0/"
        assert image.data[f"{dc}identifier"].startswith(
            f"{gravensteiner.split('/fruits/')[0]}/api/"
        )
        reference = extensions["http://rs.gbif.org/terms/1.0/Reference"]
        assert reference.data[f"{dc}bibliographicCitation"] == (
            "Müller (1905): Deutschlands Obstsorten, p. 112, plate IV; first description."
        )
        assert "Fruit Catalog" in archive.metadata.find("dataset/title").text


def test_the_exports_read_no_image_bytes(anon_client, catalog):
    with CaptureQueriesContext(connection) as queries:
        body(anon_client.get(CSV))
        body(anon_client.get(DWCA))
    assert selected_blob_columns(queries.captured_queries) == set()


def test_exports_answer_304_to_a_harvester_and_are_public(anon_client, catalog):
    first = anon_client.get(DWCA)
    body(first)
    assert first["Cache-Control"] == "public, no-cache"
    assert anon_client.get(DWCA, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def test_a_new_name_in_a_source_changes_what_a_search_export_holds(
    anon_client, curator_client, catalog
):
    first = anon_client.get(CSV, {"search": "blumencalvill"})
    assert csv_rows(first) == []
    publication_link_fruit(
        publication=Publication.objects.create(title="Pomona"),
        fruit=catalog["boskoop"],
        citation={"name_in_source": "Blumencalvill"},
    )
    again = anon_client.get(CSV, {"search": "blumencalvill"}, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert [row["name"] for row in csv_rows(again)] == ["Schöner aus Boskoop"]


def test_every_deletion_is_logged_by_the_database_whoever_deletes(catalog):
    from django.db import connection

    from catalog.models import Deletion

    before = Deletion.objects.count()
    with connection.cursor() as cursor:  # plain SQL, past the ORM
        cursor.execute("DELETE FROM catalog_fruitimage")
    assert Deletion.objects.count() > before


def test_a_name_a_spreadsheet_would_run_as_a_formula_is_written_as_text_and_reads_back(
    anon_client, curator_client, fruit_factory
):
    fruit_factory(name='=HYPERLINK("http://x")', catalog_number=1, synonyms=["@Boskoop"])
    exported = body(anon_client.get(CSV))
    assert b"'=HYPERLINK" in exported and b"'@Boskoop" in exported
    response = curator_client.post("/api/v1/imports/fruits", exported, content_type="text/csv")
    assert response.json()["unchanged"] == 1, response.json()


@pytest.mark.parametrize("path", [CSV, DWCA])
def test_a_304_keeps_the_validators(anon_client, catalog, path):
    first = anon_client.get(path)
    again = anon_client.get(path, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert again["ETag"] == first["ETag"]
    assert again["Last-Modified"] == first["Last-Modified"]
    assert again["Cache-Control"] == "public, no-cache"


@pytest.mark.parametrize("path", [CSV, DWCA])
def test_a_file_whose_urls_name_the_host_has_an_etag_per_host_and_scheme(
    anon_client, catalog, path
):
    here = anon_client.get(path, HTTP_HOST="localhost")
    there = anon_client.get(path, HTTP_HOST="127.0.0.1")
    secure = anon_client.get(path, HTTP_HOST="localhost", secure=True)
    files = [body(here), body(there), body(secure)]
    assert len(set(files)) == 3  # the fruits' pages are URLs built from the request
    assert len({here["ETag"], there["ETag"], secure["ETag"]}) == 3
    # A cache holding one host's file never has it confirmed for another.
    revalidated = anon_client.get(path, HTTP_HOST="127.0.0.1", HTTP_IF_NONE_MATCH=here["ETag"])
    assert revalidated.status_code == 200
    again = anon_client.get(path, HTTP_HOST="localhost", HTTP_IF_NONE_MATCH=here["ETag"])
    assert again.status_code == 304
    # The host is part of every cache's key (the URL) and nothing else of the request chooses
    # the bytes: the 304 varies as the 200 does, by no credential, language or host.
    assert again.get("Vary") == here.get("Vary")
    varied = {name.strip().lower() for name in here.get("Vary", "").split(",")}
    assert not varied & {"cookie", "authorization", "accept-language", "accept", "host"}
