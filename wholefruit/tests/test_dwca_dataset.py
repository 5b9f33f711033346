"""The Darwin Core Archive as a dataset: its description (`eml.xml`) and its files' dates."""

import io
import zipfile
from datetime import UTC, datetime, timedelta

import pytest
from django.test import override_settings
from django.utils.http import parse_http_date
from dwca.read import DwCAReader

from core.testing.streams import body

pytestmark = pytest.mark.django_db

DWCA = "/api/v1/exports/dwca.zip"


def read_metadata(client, tmp_path):
    """The archive's `eml.xml`, as python-dwca-reader reads it."""
    path = tmp_path / "dwca.zip"
    path.write_bytes(body(client.get(DWCA)))
    with DwCAReader(str(path)) as archive:
        return archive.metadata


@override_settings(
    FRUITCATALOG_DATASET_TITLE="Obstsorten",
    FRUITCATALOG_DATASET_CONTACT_ORGANIZATION="Pomologen-Verein",
    FRUITCATALOG_DATASET_CONTACT_EMAIL="daten@pomologen.example",
)
def test_the_dataset_names_the_contact_gbifs_profile_requires(anon_client, fruit_factory, tmp_path):
    fruit_factory(name="Gravensteiner", catalog_number=1)
    dataset = read_metadata(anon_client, tmp_path).find("dataset")
    contact = dataset.find("contact")
    assert contact.findtext("organizationName") == "Pomologen-Verein"
    assert contact.findtext("electronicMailAddress") == "daten@pomologen.example"
    assert contact.findtext("onlineUrl") == "http://testserver/"
    # The profile's order: the contact follows the distribution.
    tags = [child.tag for child in dataset]
    assert tags.index("contact") == tags.index("distribution") + 1


@override_settings(FRUITCATALOG_DATASET_TITLE="Obstsorten")
def test_without_a_contact_set_the_dataset_is_its_own_contact_without_an_address(
    anon_client, fruit_factory, tmp_path
):
    fruit_factory(name="Gravensteiner", catalog_number=1)
    contact = read_metadata(anon_client, tmp_path).find("dataset/contact")
    assert contact.findtext("organizationName") == "Obstsorten"
    assert contact.find("electronicMailAddress") is None


def test_every_file_of_the_archive_is_dated_by_the_export(anon_client, fruit_factory):
    fruit_factory(name="Gravensteiner", catalog_number=1)
    response = anon_client.get(DWCA)
    changed = datetime.fromtimestamp(parse_http_date(response["Last-Modified"]), UTC)
    with zipfile.ZipFile(io.BytesIO(body(response))) as archive:
        dates = {
            info.filename: datetime(*info.date_time, tzinfo=UTC) for info in archive.infolist()
        }
        published = archive.read("eml.xml").decode()
    assert set(dates) == {
        "meta.xml",
        "eml.xml",
        "taxon.txt",
        "vernacularname.txt",
        "multimedia.txt",
        "references.txt",
        "measurementorfact.txt",
    }
    # A zip stores local time to two seconds, without a zone: the export's time in UTC.
    assert all(timedelta(0) <= changed - date < timedelta(seconds=2) for date in dates.values())
    assert f"<pubDate>{changed.date().isoformat()}</pubDate>" in published


def test_the_archive_has_another_etag_when_the_dataset_settings_change(anon_client, fruit_factory):
    fruit_factory(name="Gravensteiner", catalog_number=1)
    first = anon_client.get(DWCA)
    with override_settings(FRUITCATALOG_DATASET_CONTACT_EMAIL="daten@pomologen.example"):
        changed = anon_client.get(DWCA, HTTP_IF_NONE_MATCH=first["ETag"])
        assert changed.status_code == 200
        with zipfile.ZipFile(io.BytesIO(body(changed))) as archive:
            assert b"daten@pomologen.example" in archive.read("eml.xml")
        assert changed["ETag"] != first["ETag"]
    assert anon_client.get(DWCA, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
