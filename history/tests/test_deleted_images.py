"""A deleted fruit's images are kept, bytes and all, for its restore, which brings them back
under their ids with their card choice; a kept image is never served, listed, exported, counted
or backfilled."""

import csv
import hashlib
import io
import zipfile

import pytest
from django.core.management import call_command

from blobs.backfill import thumbnailed_models
from catalog.models import FruitImage, KeptFruitImage
from core.testing.media import make_object_png
from core.testing.streams import body

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


def upload(client, fruit_id, data) -> dict:
    response = client.generic("POST", f"{FRUITS}/{fruit_id}/images", data, content_type="image/png")
    assert response.status_code == 201, response.content
    return response.json()


def served(client, fruit_id, image_id) -> dict:
    """What the public byte URLs of an image answer: status, bytes and ETag of each."""
    found = {}
    for name, suffix in (("image", ""), ("thumbnail", "/thumbnail")):
        response = client.get(f"{FRUITS}/{fruit_id}/images/{image_id}{suffix}")
        content = b"".join(response.streaming_content) if response.streaming else response.content
        found[name] = (response.status_code, content, response.get("ETag"))
    return found


def stored_rows(fruit_id) -> list[dict]:
    """Every column of the fruit's images as stored, bytes included."""
    columns = [field.attname for field in FruitImage._meta.concrete_fields]
    rows = FruitImage.objects.filter(fruit_id=fruit_id).order_by("pk").values(*columns)
    return [
        {
            name: bytes(value) if isinstance(value, memoryview) else value
            for name, value in row.items()
        }
        for row in rows
    ]


@pytest.fixture
def fruit_with_images(curator_client):
    """A fruit with two images of different bytes, the newer chosen for its card; its id and
    the images' ids, oldest first."""
    created = curator_client.post(
        FRUITS, {"name": "Boskoop", "type": "apple", "catalog_number": 7}, format="json"
    )
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    images = [
        upload(curator_client, pk, make_object_png(size=size))["id"]
        for size in ((120, 100), (160, 90))
    ]
    chosen = curator_client.patch(f"{FRUITS}/{pk}", {"card_image_id": images[1]}, format="json")
    assert chosen.status_code == 200, chosen.content
    return pk, images


def test_a_restored_fruit_has_its_images_back_under_their_ids_bytes_identical_and_its_card(
    curator_client, anon_client, fruit_with_images, reads_no_bytes
):
    pk, images = fruit_with_images
    before = {image_id: served(anon_client, pk, image_id) for image_id in images}
    stored = dict(FruitImage.objects.filter(fruit_id=pk).values_list("pk", "sha256"))
    rows = stored_rows(pk)
    card = anon_client.get(f"{FRUITS}/{pk}").json()["thumbnail_url"]

    with reads_no_bytes():
        assert curator_client.delete(f"{FRUITS}/{pk}").status_code == 204
    assert not FruitImage.objects.filter(pk__in=images).exists()
    with reads_no_bytes():
        restored = curator_client.post(f"/api/v1/deleted-fruits/{pk}/restore")

    assert restored.status_code == 201, restored.content
    detail = restored.json()
    assert detail["not_restored"] == []
    assert [image["id"] for image in detail["images"]] == images
    assert detail["card_image_id"] == images[1]
    assert anon_client.get(f"{FRUITS}/{pk}").json()["thumbnail_url"] == card
    for image_id in images:
        after = served(anon_client, pk, image_id)
        assert after == before[image_id]
        assert after["image"][0] == 200
        assert hashlib.sha256(after["image"][1]).hexdigest() == stored[image_id]
    assert stored_rows(pk) == rows
    assert not KeptFruitImage.objects.exists()
    restore, deletion, *_ = curator_client.get(f"{FRUITS}/{pk}/history").json()["results"]
    assert (restore["action"], deletion["action"]) == ("restored", "deleted")
    assert [image["id"] for image in restore["changes"]["images"]["to"]] == images
    assert restore["changes"]["card_image_id"] == {"from": None, "to": images[1]}


def test_a_fruit_restored_without_its_kept_images_names_them_as_not_restored(
    curator_client, fruit_with_images
):
    pk, images = fruit_with_images
    assert curator_client.delete(f"{FRUITS}/{pk}").status_code == 204
    KeptFruitImage.objects.filter(pk=images[0]).delete()  # as if never kept

    restored = curator_client.post(f"/api/v1/deleted-fruits/{pk}/restore")

    assert restored.status_code == 201, restored.content
    detail = restored.json()
    assert [image["id"] for image in detail["images"]] == [images[1]]
    assert detail["not_restored"] == ["1 image(s): their bytes were not kept"]


def test_a_kept_image_is_never_served_listed_exported_counted_or_backfilled(
    curator_client, anon_client, admin_client, fruit_with_images, fruit_factory, add_image
):
    pk, images = fruit_with_images
    other = fruit_factory(name="Topaz", catalog_number=8)
    shown = add_image(other)
    FruitImage.objects.filter(pk=images[0]).update(thumbnail_data=None, thumbnail_sha256="")
    assert curator_client.delete(f"{FRUITS}/{pk}").status_code == 204
    assert set(KeptFruitImage.objects.values_list("pk", flat=True)) == set(images)

    for image_id in images:
        for status, _, _ in served(anon_client, pk, image_id).values():
            assert status == 404
        for status, _, _ in served(anon_client, other.pk, image_id).values():
            assert status == 404
    listed = anon_client.get(f"{FRUITS}/{other.pk}/images").json()
    assert [image["id"] for image in listed] == [shown.pk]
    (card,) = anon_client.get(FRUITS).json()["results"]
    assert (card["id"], card["image_count"]) == (other.pk, 1)
    grid = anon_client.get("/")
    assert grid.status_code == 200
    assert f"/images/{shown.pk}/" in grid.content.decode()
    for image_id in images:
        assert f"/images/{image_id}/" not in grid.content.decode()

    rows = list(
        csv.DictReader(io.StringIO(body(anon_client.get("/api/v1/exports/fruits.csv")).decode()))
    )
    assert [(row["name"], row["image_count"]) for row in rows] == [("Topaz", "1")]
    with zipfile.ZipFile(io.BytesIO(body(anon_client.get("/api/v1/exports/dwca.zip")))) as dwca:
        multimedia = dwca.read("multimedia.txt").decode()
    assert f"/images/{shown.pk}?" in multimedia
    for image_id in images:
        assert f"/images/{image_id}?" not in multimedia

    changelist = admin_client.get("/admin/catalog/fruitimage/").content.decode()
    assert f"/admin/catalog/fruitimage/{shown.pk}/change/" in changelist
    for image_id in images:
        assert f"/admin/catalog/fruitimage/{image_id}/change/" not in changelist

    assert KeptFruitImage not in thumbnailed_models()
    out = io.StringIO()
    call_command("backfill_thumbnails", "--dry-run", stdout=out)
    assert "nothing to do" in out.getvalue()

    states = [
        {"value": 1, "label": "small", "image": {"image_id": images[0]}},
        {"value": 3, "label": "large"},
    ]
    characteristic = {
        "code": "t_size",
        "name": "Test: size",
        "fruit_types": ["apple"],
        "scale": "ordinal",
        "reliability": "high",
        "states": states,
    }
    refused = curator_client.post("/api/v1/characteristics", characteristic, format="json")
    assert refused.status_code == 400
    assert f"Image {images[0]} is not a fruit image." in str(refused.json())
