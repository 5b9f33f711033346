"""A Python client generated from the service's own OpenAPI schema works, as its users run it.

`openapi-python-client` (the generator most Python API consumers reach for) generates a client
from the schema the service serves, with its default settings, into a temporary folder; every
module must import, the generator must drop nothing, and the client then drives the API against
the live server: a token, fruits, uploads (multipart and raw), list and search, every byte
download, publications with their links, covers and PDFs.
"""

import importlib
import io
import pkgutil

import pytest
from django.test import Client as DjangoClient

from core.testing.generated import generated_client
from core.testing.media import make_object_png, make_pdf_bytes

pytestmark = pytest.mark.slow

PACKAGE = "fruitcatalog_client"


@pytest.fixture(scope="module")
def generated(tmp_path_factory, django_db_blocker):
    """The generated package, importable, and what the generator printed."""
    folder = tmp_path_factory.mktemp("generated")
    with django_db_blocker.unblock():
        response = DjangoClient().get("/api/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi")
    assert response.status_code == 200
    (folder / "schema.yaml").write_bytes(response.content)
    with generated_client(folder / "schema.yaml", folder, PACKAGE) as done:
        yield done


def test_the_generator_drops_nothing_and_every_module_imports(generated):
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "Warning" not in output and "omitted" not in output, output
    package = importlib.import_module(PACKAGE)
    modules = [
        importlib.import_module(module.name)
        for module in pkgutil.walk_packages(package.__path__, f"{PACKAGE}.")
    ]
    assert len(modules) > 50


def api(name: str):
    """A generated operation module, e.g. `api("fruits.fruits_create")`."""
    return importlib.import_module(f"{PACKAGE}.api.{name}")


def test_a_generated_client_drives_the_api(generated, live_server, live_curator):
    models = importlib.import_module(f"{PACKAGE}.models")
    client_module = importlib.import_module(f"{PACKAGE}.client")
    types = importlib.import_module(f"{PACKAGE}.types")

    def upload(data: bytes, name: str, mime: str):
        return types.File(payload=io.BytesIO(data), file_name=name, mime_type=mime)

    anonymous = client_module.Client(base_url=live_server.url, raise_on_unexpected_status=True)
    login = models.AuthTokenRequest(username="live-curator", password="curator-pass-123")
    token = api("auth.auth_token_create").sync(client=anonymous, body=login).token
    assert token == live_curator.token
    # The generated client sends `Bearer <token>` by default; the service takes it.
    client = client_module.AuthenticatedClient(
        base_url=live_server.url, token=token, raise_on_unexpected_status=True
    )

    body = models.FruitDetailRequest(
        name="Schöner aus Boskoop", type_=models.FruitTypeEnum.APPLE, synonyms=["Boskoop"]
    )
    fruit = api("fruits.fruits_create").sync(client=client, body=body)
    assert fruit.catalog_number >= 1
    patch = models.PatchedFruitDetailRequest(synonyms=["Boskoop", "Belle de Boskoop"])
    fruit = api("fruits.fruits_partial_update").sync(id=fruit.id, client=client, body=patch)
    assert fruit.synonyms == ["Boskoop", "Belle de Boskoop"]

    photo, raw = make_object_png(size=(120, 90)), make_object_png(size=(90, 120))
    create_image = api("fruits.fruits_images_create")
    multipart = models.ImageUploadRequest(image=upload(photo, "boskoop.png", "image/png"))
    first = create_image.sync(id=fruit.id, client=client, body=multipart)
    second = create_image.sync(id=fruit.id, client=client, body=upload(raw, "raw.png", "image/png"))
    assert (first.width, first.height, second.width, second.height) == (120, 90, 90, 120)

    found = api("fruits.fruits_list").sync(client=client, search="schoner", page_size=10)
    assert [item.id for item in found.results] == [fruit.id]

    image = api("fruits.fruits_images_retrieve").sync(id=fruit.id, image_id=first.id, client=client)
    assert image.payload.read() == photo
    thumbnail = api("fruits.fruits_images_thumbnail_retrieve").sync(
        id=fruit.id, image_id=second.id, client=client
    )
    assert thumbnail.payload.read()[:3] == b"\xff\xd8\xff"  # a JPEG

    publication = api("publications.publications_create").sync(
        client=client, body=models.PublicationRequest(title="Deutschlands Obstsorten", year=1905)
    )
    cover = make_object_png(size=(100, 140))
    api("publications.publications_cover_update").sync(
        id=publication.id, client=client, body=upload(cover, "cover.png", "image/png")
    )
    link = api("publications.publications_fruits_update").sync_detailed(
        id=publication.id, fruit_id=fruit.id, client=client
    )
    assert link.status_code == 201
    pdf = make_pdf_bytes()
    api("publications.publications_fruits_description_update").sync(
        id=publication.id,
        fruit_id=fruit.id,
        client=client,
        body=models.PDFUploadRequest(file=upload(pdf, "boskoop.pdf", "application/pdf")),
    )
    plate = make_object_png(size=(130, 100))
    plate_info = api("publications.publications_fruit_images_create").sync(
        id=publication.id,
        client=client,
        body=models.PublicationFruitImageUploadRequest(
            fruit=fruit.id, image=upload(plate, "plate.png", "image/png")
        ),
    )
    downloads = {
        "cover": api("publications.publications_cover_retrieve").sync(
            id=publication.id, client=client
        ),
        "PDF": api("publications.publications_fruits_description_retrieve").sync(
            id=publication.id, fruit_id=fruit.id, client=client
        ),
        "plate": api("publications.publications_fruit_images_retrieve").sync(
            id=publication.id, img_id=plate_info.id, client=client
        ),
    }
    assert {name: file.payload.read() for name, file in downloads.items()} == {
        "cover": cover,
        "PDF": pdf,
        "plate": plate,
    }
    plate_thumbnail = api("publications.publications_fruit_images_thumbnail_retrieve").sync(
        id=publication.id, img_id=plate_info.id, client=client
    )
    assert plate_thumbnail.payload.read()[:3] == b"\xff\xd8\xff"

    linked = api("publications.publications_retrieve").sync(id=publication.id, client=client)
    assert [entry.fruit.id for entry in linked.fruits] == [fruit.id]
    deleted = api("publications.publications_destroy").sync_detailed(
        id=publication.id, client=client
    )
    assert deleted.status_code == 204
    assert api("fruits.fruits_destroy").sync_detailed(id=fruit.id, client=client).status_code == 204

    # The change feed lists every committed change, in commit order, to anyone.
    changes = api("changes.changes_retrieve")
    page = changes.sync(client=anonymous)
    listed = [(entry.kind.value, entry.id, entry.action.value) for entry in page.results]
    assert listed[0] == ("fruit", fruit.id, "created") and listed[-1] == (
        "fruit",
        fruit.id,
        "deleted",
    )
    assert ("publication", publication.id, "deleted") in listed
    assert changes.sync(client=anonymous, after=page.next_).results == []
