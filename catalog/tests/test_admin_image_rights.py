"""Image rights in the admin: a licence that requires attribution needs a creator, the fruit's
image rows show creator and source, and the image list finds the images still without one."""

import re

import pytest
from django.urls import reverse

from catalog.models import FruitImage
from catalog.tests.test_admin import IMAGE_CHANGELIST, fruit_change_url, fruit_form_data
from core.testing.admin_pages import form_errors, png_upload
from core.testing.media import make_object_png

pytestmark = pytest.mark.django_db

REQUIRES_CREATOR = "CC BY 4.0 requires attribution: name the creator."


def image_row(index: int, image, **fields) -> dict:
    """POST data of a stored image's row of the fruit page, its details as shown unless
    `fields` changes them."""
    details = {
        "alt_text": image.alt_text,
        "creator": image.creator,
        "license": image.license,
        **fields,
    }
    return {
        f"images-{index}-id": image.pk,
        **{f"images-{index}-{name}": value for name, value in details.items()},
    }


def test_the_image_page_refuses_a_cc_by_licence_without_a_creator(
    admin_client, fruit_factory, add_image
):
    image = add_image(fruit_factory(name="Topaz"))
    url = reverse("admin:catalog_fruitimage_change", args=[image.pk])
    data = {"fruit": image.fruit_id, "alt_text": "", "role": "fruit", "source": "", "creator": ""}
    response = admin_client.post(url, {**data, "license": "CC-BY-4.0"})
    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {"creator": [REQUIRES_CREATOR]}
    image.refresh_from_db()
    assert image.license == ""

    response = admin_client.post(url, {**data, "license": "CC-BY-4.0", "creator": "Eva Obst"})
    assert response.status_code == 302, form_errors(response)
    image.refresh_from_db()
    assert (image.license, image.creator) == ("CC-BY-4.0", "Eva Obst")


def test_the_image_inline_refuses_an_upload_under_cc_by_without_a_creator(
    admin_client, fruit_factory
):
    fruit = fruit_factory(name="Topaz", catalog_number=5)
    data = fruit_form_data(name="Topaz", catalog_number=5, uploads=[png_upload()])
    data |= {"images-0-license": "CC-BY-NC-4.0"}
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 200
    (formset,) = [
        f for f in response.context["inline_admin_formsets"] if f.formset.prefix == "images"
    ]
    assert formset.formset.errors == [
        {"creator": ["CC BY-NC 4.0 requires attribution: name the creator."]}
    ]
    assert not FruitImage.objects.exists()


def test_the_image_inline_takes_the_creator_with_the_upload(admin_client, fruit_factory):
    fruit = fruit_factory(name="Topaz", catalog_number=5)
    data = fruit_form_data(name="Topaz", catalog_number=5, uploads=[png_upload()])
    data |= {"images-0-license": "CC-BY-4.0", "images-0-creator": "Eva Obst"}
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 302, form_errors(response)
    image = FruitImage.objects.get()
    assert (image.license, image.creator) == ("CC-BY-4.0", "Eva Obst")


def test_the_fruit_page_shows_each_images_creator_and_source_and_the_missing_creator(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz")
    credited = add_image(fruit, make_object_png(size=(120, 100)))
    bare = add_image(fruit, make_object_png(size=(130, 100)))
    FruitImage.objects.filter(pk=credited.pk).update(
        license="CC-BY-4.0", creator="Eva Obst", source="Pomologische Monatshefte, plate 3"
    )
    FruitImage.objects.filter(pk=bare.pk).update(license="CC-BY-SA-4.0")
    page = admin_client.get(fruit_change_url(fruit)).text
    assert 'name="images-0-creator" value="Eva Obst"' in page
    assert "Source: Pomologische Monatshefte, plate 3" in page
    for image in (credited, bare):
        details = reverse("admin:catalog_fruitimage_change", args=[image.pk])
        assert f'<a href="{details}">Role, source</a>' in page
    assert page.count("requires one.") == 1
    assert "No creator: CC BY-SA 4.0 requires one." in page


def test_an_image_stored_without_its_creator_does_not_block_the_fruit_page(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz", catalog_number=5)
    image = add_image(fruit)
    FruitImage.objects.filter(pk=image.pk).update(license="CC-BY-4.0")
    image.refresh_from_db()
    data = fruit_form_data(name="Topaz aus Tschechien", catalog_number=5, existing_images=[])
    data |= {"images-TOTAL_FORMS": "1", "images-INITIAL_FORMS": "1", **image_row(0, image)}
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 302, form_errors(response)
    fruit.refresh_from_db()
    assert fruit.name == "Topaz aus Tschechien"

    # Touching its licence asks for the creator.
    data |= image_row(0, image, license="CC-BY-SA-4.0")
    response = admin_client.post(fruit_change_url(fruit), data)
    assert response.status_code == 200
    assert "CC BY-SA 4.0 requires attribution: name the creator." in form_errors(response)
    image.refresh_from_db()
    assert image.license == "CC-BY-4.0"


def test_the_image_list_finds_the_images_whose_licence_wants_a_creator(
    admin_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz")
    wanting, credited, free = (
        add_image(fruit, make_object_png(size=(100 + 10 * i, 100))) for i in range(3)
    )
    FruitImage.objects.filter(pk=wanting.pk).update(license="CC-BY-NC-SA-4.0")
    FruitImage.objects.filter(pk=credited.pk).update(license="CC-BY-4.0", creator="Eva Obst")
    FruitImage.objects.filter(pk=free.pk).update(license="CC0-1.0")

    page = admin_client.get(IMAGE_CHANGELIST, {"missing": "creator"})
    assert page.status_code == 200
    listed = {int(pk) for pk in re.findall(r'name="_selected_action" value="(\d+)"', page.text)}
    assert listed == {wanting.pk}
    assert "Without the creator their licence requires" in page.text
