"""A fruit's card image: chosen by curators (the oldest by default), stored under a constraint,
followed by the API's `thumbnail_url` and by `Fruit.card_thumbnail`, which the cards use."""

import io

import pytest
from django.db import IntegrityError, transaction
from PIL import Image

from catalog.models import Fruit, FruitImage
from catalog.serializers import FruitSerializer
from catalog.views import FruitViewSet
from core.testing.media import make_image_bytes, make_object_png
from core.testing.races import deleting_after

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


def thumbnail_path(image) -> str:
    return f"/api/v1/fruits/{image.fruit_id}/images/{image.pk}/thumbnail"


def card_of(client, fruit) -> tuple:
    """(card_image_id, thumbnail_url) of the fruit, from its detail and from the list."""
    detail = client.get(f"{FRUITS}/{fruit.pk}").json()
    (listed,) = [f for f in client.get(FRUITS).json()["results"] if f["id"] == fruit.pk]
    assert (listed["card_image_id"], listed["thumbnail_url"]) == (
        detail["card_image_id"],
        detail["thumbnail_url"],
    )
    return detail["card_image_id"], detail["thumbnail_url"]


def choose(client, fruit, image_id):
    return client.patch(f"{FRUITS}/{fruit.pk}", {"card_image_id": image_id}, format="json")


@pytest.fixture
def fruit_with_images(fruit_factory, add_image):
    """A fruit with three images, oldest first."""
    fruit = fruit_factory(name="Boskoop")
    images = [add_image(fruit, make_object_png(size=(120 + 10 * index, 100))) for index in range(3)]
    return fruit, images


def test_without_a_choice_the_card_shows_the_oldest_image(anon_client, fruit_with_images):
    fruit, (oldest, *_) = fruit_with_images
    card_id, url = card_of(anon_client, fruit)
    assert card_id is None
    assert url == f"http://testserver{oldest.get_thumbnail_url()}"


def test_a_curator_chooses_the_card_image_and_the_thumbnail_url_follows(
    curator_client, anon_client, fruit_with_images
):
    fruit, (_, middle, newest) = fruit_with_images
    response = choose(curator_client, fruit, middle.pk)
    assert response.status_code == 200
    assert response.json()["card_image_id"] == middle.pk
    assert response.json()["thumbnail_url"] == f"http://testserver{middle.get_thumbnail_url()}"
    assert card_of(anon_client, fruit) == (
        middle.pk,
        f"http://testserver{middle.get_thumbnail_url()}",
    )

    assert choose(curator_client, fruit, newest.pk).status_code == 200
    assert list(FruitImage.objects.filter(is_card_image=True)) == [newest]
    assert card_of(anon_client, fruit)[0] == newest.pk


def test_null_goes_back_to_the_oldest_and_omitting_it_keeps_the_choice(
    curator_client, anon_client, fruit_with_images
):
    fruit, (oldest, middle, _) = fruit_with_images
    choose(curator_client, fruit, middle.pk)
    renamed = curator_client.put(
        f"{FRUITS}/{fruit.pk}", {"name": "Belle de Boskoop", "type": "apple"}, format="json"
    )
    assert renamed.json()["card_image_id"] == middle.pk

    assert choose(curator_client, fruit, None).json()["card_image_id"] is None
    assert card_of(anon_client, fruit) == (None, f"http://testserver{oldest.get_thumbnail_url()}")
    assert not FruitImage.objects.filter(is_card_image=True).exists()


@pytest.mark.parametrize("which", ["another fruit's", "unknown", "zero", "text"])
def test_a_card_image_that_is_not_one_of_the_fruits_images_is_a_400(
    curator_client, fruit_with_images, fruit_factory, add_image, which
):
    fruit, (_, middle, _) = fruit_with_images
    choose(curator_client, fruit, middle.pk)
    other = add_image(fruit_factory(name="Other"))
    value = {"another fruit's": other.pk, "unknown": 999_999, "zero": 0, "text": "x"}[which]

    response = curator_client.patch(
        f"{FRUITS}/{fruit.pk}", {"name": "Renamed", "card_image_id": value}, format="json"
    )

    assert response.status_code == 400
    assert list(response.json()) == ["card_image_id"]
    assert isinstance(response.json()["card_image_id"], list)
    fruit.refresh_from_db()
    assert fruit.name == "Boskoop"  # nothing of the write is kept
    assert list(FruitImage.objects.filter(is_card_image=True)) == [middle]


def test_a_new_fruit_has_no_image_to_choose(curator_client, fruit_with_images):
    _, (image, *_) = fruit_with_images
    response = curator_client.post(
        FRUITS, {"name": "Neu", "type": "pear", "card_image_id": image.pk}, format="json"
    )
    assert response.status_code == 400
    assert "card_image_id" in response.json()
    assert not Fruit.objects.filter(name="Neu").exists()
    created = curator_client.post(
        FRUITS, {"name": "Neu", "type": "pear", "card_image_id": None}, format="json"
    )
    assert created.status_code == 201
    assert created.json()["card_image_id"] is None


def test_choosing_needs_the_change_permission(anon_client, reader_client, fruit_with_images):
    fruit, (_, middle, _) = fruit_with_images
    assert choose(anon_client, fruit, middle.pk).status_code == 401
    assert choose(reader_client, fruit, middle.pk).status_code == 403
    assert not FruitImage.objects.filter(is_card_image=True).exists()


def test_deleting_the_card_image_falls_back_to_the_oldest(
    curator_client, anon_client, fruit_with_images
):
    fruit, (oldest, middle, _) = fruit_with_images
    choose(curator_client, fruit, middle.pk)
    assert curator_client.delete(f"{FRUITS}/{fruit.pk}/images/{middle.pk}").status_code == 204
    assert card_of(anon_client, fruit) == (None, f"http://testserver{oldest.get_thumbnail_url()}")
    assert curator_client.delete(f"{FRUITS}/{fruit.pk}/images/{oldest.pk}").status_code == 204
    assert card_of(anon_client, fruit)[1].startswith("http://testserver/api/v1/fruits/")
    for image in FruitImage.objects.all():
        image.delete()
    assert card_of(anon_client, fruit) == (None, None)


def test_a_card_image_deleted_while_the_write_runs_is_a_400_and_nothing_is_kept(
    monkeypatch, curator_client, fruit_with_images
):
    fruit, (_, middle, _) = fruit_with_images
    gone = lambda: FruitImage.objects.filter(pk=middle.pk).delete()  # noqa: E731
    # Gone after the request validated, before the write locks the fruit.
    deleting_after(monkeypatch, FruitSerializer, "validate", gone)

    response = curator_client.patch(
        f"{FRUITS}/{fruit.pk}", {"name": "Renamed", "card_image_id": middle.pk}, format="json"
    )

    assert response.status_code == 400
    assert "card_image_id" in response.json()
    fruit.refresh_from_db()
    assert fruit.name == "Boskoop"


def test_a_card_image_write_racing_the_fruit_delete_is_a_404(
    monkeypatch, curator_client, fruit_with_images
):
    fruit, (_, middle, _) = fruit_with_images
    gone = lambda: Fruit.objects.filter(pk=fruit.pk).delete()  # noqa: E731
    deleting_after(monkeypatch, FruitViewSet, "get_object", gone)

    response = choose(curator_client, fruit, middle.pk)

    assert response.status_code == 404
    assert not Fruit.objects.filter(pk=fruit.pk).exists()


def test_the_database_allows_one_card_image_per_fruit(fruit_with_images, fruit_factory, add_image):
    _, (oldest, middle, _) = fruit_with_images
    other = add_image(fruit_factory())  # another fruit's card image: no conflict
    FruitImage.objects.filter(pk__in=[oldest.pk, other.pk]).update(is_card_image=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        FruitImage.objects.filter(pk=middle.pk).update(is_card_image=True)


def test_a_card_thumbnail_has_the_versioned_url_and_stored_size_without_reading_bytes(
    fruit_factory, add_image, reads_no_bytes
):
    fruit = fruit_factory()
    wide = add_image(fruit, make_object_png(size=(600, 200), box=(0, 0, 599, 199)))
    with reads_no_bytes() as captured:
        card = Fruit.objects.with_list_data().get(pk=fruit.pk).card_thumbnail
    assert len(captured.captured_queries) == 1  # the fruit with its card and its synonyms
    thumbnail = Image.open(io.BytesIO(bytes(wide.thumbnail_data)))
    assert (card.width, card.height) == thumbnail.size == (300, 100)
    assert card.url == f"{thumbnail_path(wide)}?v={wide.thumbnail_sha256[:16]}"


def test_a_card_without_a_stored_thumbnail_shows_the_image_at_its_own_size(
    fruit_factory, add_image
):
    fruit = fruit_factory()
    gif = make_image_bytes("GIF", size=(70, 40))
    image = add_image(fruit, gif)
    FruitImage.objects.filter(pk=image.pk).update(
        thumbnail_data=None, thumbnail_sha256="", thumbnail_width=0, thumbnail_height=0
    )
    card = Fruit.objects.with_list_data().get(pk=fruit.pk).card_thumbnail
    assert (card.width, card.height) == (70, 40)
    assert card.url == f"{thumbnail_path(image)}?v={image.sha256[:16]}"


def test_a_fruit_without_an_image_has_no_card_thumbnail(fruit_factory):
    fruit = fruit_factory()
    assert Fruit.objects.with_list_data().get(pk=fruit.pk).card_thumbnail is None
    assert Fruit.objects.get(pk=fruit.pk).card_thumbnail is None


def test_a_fruit_loaded_without_the_list_data_finds_its_card_in_one_query(
    fruit_with_images, curator_client, django_assert_num_queries, reads_no_bytes
):
    fruit, (_, middle, _) = fruit_with_images
    choose(curator_client, fruit, middle.pk)
    annotated = Fruit.objects.with_list_data().get(pk=fruit.pk).card_thumbnail
    plain = Fruit.objects.get(pk=fruit.pk)
    with reads_no_bytes(), django_assert_num_queries(1):
        assert plain.card_thumbnail == annotated
        assert plain.card_thumbnail.url == middle.get_thumbnail_url()  # kept, no second query


def test_cards_of_a_list_take_constant_queries_and_read_no_bytes(
    fruit_factory, add_image, curator_client, django_assert_num_queries, reads_no_bytes
):
    fruits = [fruit_factory(synonyms=[f"alias {index}"]) for index in range(30)]
    expected = {}
    for index, fruit in enumerate(fruits[::3]):
        oldest = add_image(fruit)
        newer = add_image(fruit, make_object_png(size=(200, 100)))
        expected[fruit.pk] = oldest
        if index % 2:  # half of them chosen; the others show their oldest image
            choose(curator_client, fruit, newer.pk)
            expected[fruit.pk] = newer
    with reads_no_bytes(), django_assert_num_queries(1):  # the fruits with their synonyms
        cards = {
            fruit.pk: fruit.card_thumbnail
            for fruit in Fruit.objects.with_list_data().order_by("pk")
        }
    assert {pk for pk, card in cards.items() if card is not None} == set(expected)
    for pk, image in expected.items():
        image.refresh_from_db()
        assert cards[pk].url == image.get_thumbnail_url()
        assert (cards[pk].width, cards[pk].height) == (
            image.thumbnail_width,
            image.thumbnail_height,
        )
