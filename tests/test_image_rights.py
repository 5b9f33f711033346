"""Image details and rights, and duplicates refused: the same for fruit and publication images."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import FruitImage
from catalog.services import fruit_create
from core.testing.media import make_object_png
from publications.models import Publication, PublicationFruitImage
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db

DETAILS = {
    "alt_text": "A red apple with a short stalk",
    "role": "section",
    "creator": "Eva Obst",
    "source": "Deutschlands Obstsorten, plate 23",
    "license": "CC-BY-SA-4.0",
}


class FruitImages:
    """Upload, list and change a fruit's images."""

    model = FruitImage

    def __init__(self):
        self.fruit = fruit_create(name="Gravensteiner", type="apple")
        self.url = f"/api/v1/fruits/{self.fruit.pk}/images"

    def upload(self, client, data: bytes, **fields):
        return client.post(self.url, {"image": named(data), **fields}, format="multipart")


class PublicationImages:
    """Upload, list and change a publication's images of a linked fruit."""

    model = PublicationFruitImage

    def __init__(self):
        self.fruit = fruit_create(name="Gravensteiner", type="apple")
        self.publication = Publication.objects.create(title="Pomona")
        publication_link_fruit(publication=self.publication, fruit=self.fruit)
        self.url = f"/api/v1/publications/{self.publication.pk}/fruit-images"

    def upload(self, client, data: bytes, **fields):
        body = {"image": named(data), "fruit": self.fruit.pk, **fields}
        return client.post(self.url, body, format="multipart")


@pytest.fixture(params=[FruitImages, PublicationImages], ids=["fruit", "publication"])
def images(request, db):
    return request.param()


def named(data: bytes):
    buffer = io.BytesIO(data)
    buffer.name = "photo.png"
    return buffer


def test_an_upload_takes_the_images_details_and_the_api_shows_them(curator_client, images):
    response = images.upload(curator_client, make_object_png(), **DETAILS)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert {key: body[key] for key in DETAILS} == DETAILS
    assert body["license_url"] == "https://creativecommons.org/licenses/by-sa/4.0/"
    (listed,) = curator_client.get(images.url).json()
    assert listed["alt_text"] == DETAILS["alt_text"]


def test_an_upload_without_details_has_the_defaults(curator_client, images):
    body = images.upload(curator_client, make_object_png()).json()
    assert (body["role"], body["license"], body["license_url"], body["alt_text"]) == (
        "fruit",
        "",
        None,
        "",
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"license": "CC-BY-3.0"}, "license"),
        ({"license": "cc0-1.0"}, "license"),
        ({"role": "portrait"}, "role"),
        ({"alt_text": "x" * 301}, "alt_text"),
        ({"creator": "x" * 201}, "creator"),
        ({"source": "x" * 501}, "source"),
    ],
)
def test_bad_details_are_a_400_and_nothing_is_stored(curator_client, images, fields, field):
    response = images.upload(curator_client, make_object_png(), **fields)
    assert response.status_code == 400
    assert field in response.json()
    assert not images.model.objects.exists()


def test_patch_changes_the_details_and_a_get_still_serves_the_bytes(
    curator_client, anon_client, images
):
    png = make_object_png()
    created = images.upload(curator_client, png).json()
    path = f"{images.url}/{created['id']}"
    response = curator_client.patch(
        path, {"license": "CC0-1.0", "creator": "  Eva Obst "}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["license"], body["license_url"], body["creator"]) == (
        "CC0-1.0",
        "https://creativecommons.org/publicdomain/zero/1.0/",
        "Eva Obst",
    )
    assert body["url"] == created["url"]  # the bytes are unchanged, and so is their version
    served = anon_client.get(path)
    assert served.status_code == 200 and served.content == png
    image = images.model.objects.get()
    assert (image.license, image.creator, image.role) == ("CC0-1.0", "Eva Obst", "fruit")


def test_a_bad_patch_is_a_400_and_changes_nothing(curator_client, images):
    created = images.upload(curator_client, make_object_png(), license="CC0-1.0").json()
    path = f"{images.url}/{created['id']}"
    for body in ({"license": "GPL"}, {"role": None}, {"alt_text": 7}):
        response = curator_client.patch(path, body, format="json")
        assert response.status_code == 400, body
    image = images.model.objects.get()
    assert (image.license, image.role, image.alt_text) == ("CC0-1.0", "fruit", "")


def test_patch_needs_the_change_permission_and_an_existing_image(
    curator_client, anon_client, images
):
    created = images.upload(curator_client, make_object_png()).json()
    path = f"{images.url}/{created['id']}"
    assert anon_client.patch(path, {"creator": "X"}, format="json").status_code == 401
    missing = f"{images.url}/{created['id'] + 1000}"
    assert curator_client.patch(missing, {"creator": "X"}, format="json").status_code == 404


def test_the_same_bytes_twice_are_a_409_naming_the_image_and_nothing_is_stored(
    curator_client, images
):
    png = make_object_png()
    first = images.upload(curator_client, png).json()
    response = images.upload(curator_client, png, creator="Someone else")
    assert response.status_code == 409
    assert response.json() == {
        "detail": f"This image is already stored as image {first['id']}.",
        "image_id": first["id"],
    }
    assert images.model.objects.count() == 1
    # Other bytes are welcome.
    assert images.upload(curator_client, make_object_png(size=(130, 100))).status_code == 201


def test_the_same_bytes_may_belong_to_another_fruit(curator_client):
    png = make_object_png()
    one, other = FruitImages(), FruitImages()
    assert one.upload(curator_client, png).status_code == 201
    assert other.upload(curator_client, png).status_code == 201
    one_publication, another_publication = PublicationImages(), PublicationImages()
    assert one_publication.upload(curator_client, png).status_code == 201
    assert another_publication.upload(curator_client, png).status_code == 201


def test_a_raw_upload_of_the_same_bytes_is_a_409_too(curator_client):
    images = FruitImages()
    png = make_object_png()
    assert curator_client.post(images.url, png, content_type="image/png").status_code == 201
    response = curator_client.post(images.url, png, content_type="image/png")
    assert response.status_code == 409 and "image_id" in response.json()


@pytest.mark.parametrize("value", ["None", "null", "Unknown"])
def test_a_licence_spelled_as_nothing_is_a_400_not_a_conflict(curator_client, images, value):
    created = images.upload(curator_client, make_object_png()).json()
    response = curator_client.patch(
        f"{images.url}/{created['id']}", {"license": value}, format="json"
    )
    assert response.status_code == 400 and "license" in response.json()
    assert (
        images.upload(curator_client, make_object_png(size=(130, 100)), license=value).status_code
        == 400
    )


# --- a licence that requires attribution needs a creator --------------------------------------

ATTRIBUTION = ["CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-NC-4.0", "CC-BY-NC-SA-4.0"]


@pytest.mark.parametrize("license", ATTRIBUTION)
@pytest.mark.parametrize("creator", [None, "", "   "])
def test_an_upload_under_a_cc_by_licence_without_a_creator_is_a_400_naming_creator(
    curator_client, images, license, creator
):
    fields = {"license": license} if creator is None else {"license": license, "creator": creator}
    response = images.upload(curator_client, make_object_png(), **fields)
    assert response.status_code == 400, response.json()
    assert list(response.json()) == ["creator"]
    assert "requires attribution" in response.json()["creator"][0]
    assert not images.model.objects.exists()


@pytest.mark.parametrize("license", ["", "CC0-1.0", "public-domain", "all-rights-reserved"])
def test_licences_without_attribution_need_no_creator(curator_client, images, license):
    response = images.upload(curator_client, make_object_png(), license=license)
    assert response.status_code == 201, response.json()


def test_a_patch_setting_a_cc_by_licence_on_an_image_without_a_creator_is_a_400(
    curator_client, images
):
    created = images.upload(curator_client, make_object_png(), alt_text="An apple").json()
    path = f"{images.url}/{created['id']}"
    response = curator_client.patch(path, {"license": "CC-BY-4.0"}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["creator"]
    assert images.model.objects.get().license == ""
    # Named together, they are welcome.
    both = curator_client.patch(
        path, {"license": "CC-BY-4.0", "creator": "Eva Obst"}, format="json"
    )
    assert both.status_code == 200, both.json()
    assert (both.json()["license"], both.json()["creator"]) == ("CC-BY-4.0", "Eva Obst")


def test_a_patch_emptying_the_creator_of_a_cc_by_image_is_a_400(curator_client, images):
    created = images.upload(
        curator_client, make_object_png(), license="CC-BY-SA-4.0", creator="Eva Obst"
    ).json()
    path = f"{images.url}/{created['id']}"
    response = curator_client.patch(path, {"creator": ""}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["creator"]
    assert images.model.objects.get().creator == "Eva Obst"
    # Another licence, without attribution, lets the creator go.
    response = curator_client.patch(path, {"license": "CC0-1.0", "creator": ""}, format="json")
    assert response.status_code == 200, response.json()


def test_an_image_stored_without_its_creator_keeps_it_and_other_details_still_change(
    curator_client, images
):
    created = images.upload(curator_client, make_object_png()).json()
    images.model.objects.update(license="CC-BY-4.0")  # stored before the rule
    path = f"{images.url}/{created['id']}"
    response = curator_client.patch(path, {"alt_text": "An apple"}, format="json")
    assert response.status_code == 200, response.json()
    assert curator_client.patch(path, {"license": "CC-BY-4.0"}, format="json").status_code == 400
    response = curator_client.patch(path, {"creator": "Eva Obst"}, format="json")
    assert response.status_code == 200, response.json()
    image = images.model.objects.get()
    assert (image.alt_text, image.license, image.creator) == ("An apple", "CC-BY-4.0", "Eva Obst")


def test_import_images_refuses_a_file_whose_licence_wants_a_creator(
    tmp_path, monkeypatch, fruit_factory
):
    from catalog.management.commands import import_images

    fruit_factory(name="Gravensteiner", catalog_number=1042)
    (tmp_path / "1042.png").write_bytes(make_object_png())
    # The command names no licence of its own: an image it builds under a CC BY licence stands
    # for any detail it sets.
    monkeypatch.setattr(
        import_images,
        "FruitImage",
        lambda **fields: FruitImage(license="CC-BY-4.0", **fields),
    )
    err = io.StringIO()
    with pytest.raises(CommandError, match="0 added, 0 skipped, 1 failed"):
        call_command("import_images", str(tmp_path), stdout=io.StringIO(), stderr=err)
    assert "1042.png: CC BY 4.0 requires attribution: name the creator." in err.getvalue()
    assert not FruitImage.objects.exists()
