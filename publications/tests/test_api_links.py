"""Linking fruits to publications: idempotent links, unlinking with cleanup, protected fruits."""

import pytest

from catalog.models import Fruit, FruitImage
from core.testing.media import make_pdf_bytes
from publications.models import PublicationFruit, PublicationFruitImage

pytestmark = pytest.mark.django_db


def links_path(publication, fruit=None) -> str:
    path = f"/api/v1/publications/{publication.pk}/fruits"
    return path if fruit is None else f"{path}/{fruit.pk}"


def test_linking_answers_201_then_200_and_stores_one_link(
    curator_client, publication_factory, fruit_factory
):
    publication = publication_factory()
    fruit = fruit_factory(name="Boskoop", catalog_number=7)
    first = curator_client.put(links_path(publication, fruit))
    assert first.status_code == 201
    assert first["Location"] == f"http://testserver{links_path(publication, fruit)}"
    assert first.json() == {
        "fruit": {"id": fruit.pk, "catalog_number": 7, "name": "Boskoop", "type": "apple"},
        "pages": "",
        "plate": "",
        "name_in_source": "",
        "is_first_description": False,
        "has_description": False,
        "description_url": None,
        "image_count": 0,
    }
    again = curator_client.put(f"{links_path(publication, fruit)}/")
    assert again.status_code == 200
    assert again.json() == first.json()
    assert PublicationFruit.objects.count() == 1


def test_linking_again_keeps_the_pdf_and_images(
    curator_client, publication_factory, fruit_factory, link_fruit, add_publication_image
):
    publication, fruit = publication_factory(), fruit_factory()
    add_publication_image(link_fruit(publication, fruit, make_pdf_bytes()))
    body = curator_client.put(links_path(publication, fruit)).json()
    assert (body["has_description"], body["image_count"]) == (True, 1)


def test_linking_an_unknown_fruit_or_to_an_unknown_publication_is_a_404(
    curator_client, publication_factory, fruit_factory
):
    publication, fruit = publication_factory(), fruit_factory()
    assert curator_client.put(f"{links_path(publication)}/99999").status_code == 404
    response = curator_client.put(f"/api/v1/publications/99999/fruits/{fruit.pk}")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}
    assert not PublicationFruit.objects.exists()


def test_the_link_list_shows_the_publication_fruits(
    anon_client, publication_factory, fruit_factory, link_fruit
):
    publication = publication_factory()
    fruits = [fruit_factory(catalog_number=n) for n in (3, 1, 2)]
    for fruit in fruits:
        link_fruit(publication, fruit)
    link_fruit(publication_factory(), fruit_factory(catalog_number=4))
    body = anon_client.get(links_path(publication)).json()
    assert [link["fruit"]["catalog_number"] for link in body] == [1, 2, 3]
    assert anon_client.get("/api/v1/publications/99999/fruits").status_code == 404


def test_the_link_list_uses_two_queries_and_never_selects_bytes(
    anon_client,
    publication_factory,
    fruit_factory,
    link_fruit,
    add_publication_image,
    reads_no_bytes,
    django_assert_max_num_queries,
):
    publication = publication_factory()
    for _ in range(5):
        link = link_fruit(publication, fruit_factory(), make_pdf_bytes())
        add_publication_image(link)
    with reads_no_bytes(), django_assert_max_num_queries(2):
        body = anon_client.get(links_path(publication)).json()
    assert [link["image_count"] for link in body] == [1] * 5


def test_unlinking_removes_the_pdf_and_images_of_that_fruit_in_this_publication_only(
    curator_client,
    publication_factory,
    fruit_factory,
    link_fruit,
    add_publication_image,
    add_image,
    reads_no_bytes,
):
    publication, other = publication_factory(), publication_factory()
    fruit, kept = fruit_factory(), fruit_factory()
    add_publication_image(link_fruit(publication, fruit, make_pdf_bytes()))
    add_publication_image(link_fruit(publication, fruit))
    kept_in_publication = add_publication_image(link_fruit(publication, kept))
    kept_elsewhere = add_publication_image(link_fruit(other, fruit, make_pdf_bytes()))
    own_image = add_image(fruit)
    with reads_no_bytes():
        assert curator_client.delete(links_path(publication, fruit)).status_code == 204
    assert set(PublicationFruitImage.objects.values_list("pk", flat=True)) == {
        kept_in_publication.pk,
        kept_elsewhere.pk,
    }
    assert not PublicationFruit.objects.filter(publication=publication, fruit=fruit).exists()
    assert PublicationFruit.objects.get(publication=other, fruit=fruit).has_description
    assert FruitImage.objects.get() == own_image
    assert Fruit.objects.filter(pk=fruit.pk).exists()
    assert curator_client.get(f"{links_path(publication, fruit)}/description").status_code == 404


def test_unlinking_a_fruit_that_is_not_linked_is_a_404(
    curator_client, publication_factory, fruit_factory
):
    publication, fruit = publication_factory(), fruit_factory()
    assert curator_client.delete(links_path(publication, fruit)).status_code == 404
    assert curator_client.delete(f"/api/v1/publications/99999/fruits/{fruit.pk}").status_code == 404


def test_deleting_a_linked_fruit_is_a_409_naming_the_publications_and_deletes_nothing(
    curator_client,
    publication_factory,
    fruit_factory,
    link_fruit,
    add_publication_image,
    add_image,
    png_bytes,
    reads_no_bytes,
):
    fruit = fruit_factory(synonyms=["Alias"])
    add_image(fruit)
    for title in ["Pomona Franconica", "Deutschlands Obstsorten"]:
        publication = publication_factory(title=title, cover_data=png_bytes)
        add_publication_image(link_fruit(publication, fruit, make_pdf_bytes()))
    with reads_no_bytes():
        response = curator_client.delete(f"/api/v1/fruits/{fruit.pk}")
    assert response.status_code == 409
    assert response.json() == {
        "detail": (
            "It is still linked by Deutschlands Obstsorten, Pomona Franconica; "
            "remove those links first."
        )
    }
    assert curator_client.get(f"/api/v1/fruits/{fruit.pk}").json()["synonyms"] == ["Alias"]
    assert FruitImage.objects.count() == 1
    assert PublicationFruit.objects.filter(description_sha256__gt="").count() == 2
    assert PublicationFruitImage.objects.count() == 2


def test_a_fruit_can_be_deleted_once_unlinked(
    curator_client, publication_factory, fruit_factory, link_fruit
):
    publication, fruit = publication_factory(), fruit_factory()
    link_fruit(publication, fruit)
    assert curator_client.delete(links_path(publication, fruit)).status_code == 204
    assert curator_client.delete(f"/api/v1/fruits/{fruit.pk}").status_code == 204


def test_links_need_change_publication(
    anon_client, reader_client, publication_factory, fruit_factory, link_fruit
):
    publication, fruit, linked = publication_factory(), fruit_factory(), fruit_factory()
    link_fruit(publication, linked)
    for client, status in [(anon_client, 401), (reader_client, 403)]:
        assert client.put(links_path(publication, fruit)).status_code == status
        assert client.delete(links_path(publication, linked)).status_code == status
    assert list(PublicationFruit.objects.values_list("fruit", flat=True)) == [linked.pk]
    assert reader_client.get(links_path(publication)).status_code == 200


HUGE = "99999999999999999999999999"


@pytest.mark.parametrize(
    "path",
    [
        f"/api/v1/publications/{HUGE}/cover",
        f"/api/v1/publications/{HUGE}/fruits",
        f"/api/v1/publications/{HUGE}/fruits/1",
        f"/api/v1/publications/1/fruits/{HUGE}",
        f"/api/v1/publications/1/fruits/{HUGE}/description",
        f"/api/v1/publications/{HUGE}/fruits/1/description",
        f"/api/v1/publications/{HUGE}/fruit-images",
        f"/api/v1/publications/1/fruit-images/{HUGE}",
        f"/api/v1/publications/{HUGE}/fruit-images/1/thumbnail",
    ],
)
def test_ids_past_the_64_bit_range_are_a_404_on_every_sub_resource(
    curator_client, publication_factory, path
):
    publication_factory()
    for method in ("get", "put", "post", "delete"):
        response = getattr(curator_client, method)(path)
        assert response.status_code in {404, 405}, (method, response.status_code)
        assert response.json()["detail"]


@pytest.mark.parametrize(
    "suffix", ["cover", "fruits", "fruits/{fruit}", "fruits/{fruit}/description", "fruit-images"]
)
def test_options_describes_every_sub_resource(
    curator_client, publication_factory, fruit_factory, link_fruit, suffix
):
    publication, fruit = publication_factory(), fruit_factory()
    link_fruit(publication, fruit)
    path = f"/api/v1/publications/{publication.pk}/{suffix.format(fruit=fruit.pk)}"
    for id_ in (publication.pk, 0):
        response = curator_client.options(path.replace(f"/{publication.pk}/", f"/{id_}/"))
        assert response.status_code == 200
        assert response.json()["name"]
