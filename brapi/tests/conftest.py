"""A small catalog every BrAPI test reads: parentage of every kind, names of every kind,
characteristics with values and a source, images with their rights, and a deleted fruit whose
images are kept."""

import pytest

from catalog.models import FruitImage, FruitType
from catalog.services import fruit_delete
from catalog.tests.factories import FruitFactory
from core.testing.media import make_object_png
from identification.tests.factories import make_characteristic
from publications.services import publication_link_fruit
from publications.tests.factories import PublicationFactory


def relate(client, fruit, relations):
    response = client.patch(f"/api/v1/fruits/{fruit.pk}", {"relations": relations}, format="json")
    assert response.status_code == 200, response.json()


@pytest.fixture
def orchard(db, curator_client):
    """Fruits by name: Golden Delicious and Jonathan are Jonagold's mother and father, Red
    Jonagold its sport, Cox a seedling of Ribston Pippin, Elstar a cross of Golden Delicious
    with a parent of unknown role (Ingrid Marie, known by name only... and Cox in the catalog),
    a pear, and a fruit deleted with its image kept."""
    make = FruitFactory
    fruits = {
        "Golden Delicious": make(name="Golden Delicious", catalog_number=1),
        "Jonathan": make(name="Jonathan", catalog_number=2),
        "Jonagold": make(
            name="Jonagold",
            catalog_number=3,
            names=[
                {"name": "Jonagold Apfel", "kind": "translation", "language": "de"},
                {"name": "Jonnie", "kind": "trade_name"},
                {"name": "Jonathan Gold", "kind": "misapplied"},
            ],
        ),
        "Red Jonagold": make(name="Red Jonagold", catalog_number=4),
        "Ribston Pippin": make(name="Ribston Pippin", catalog_number=5),
        "Cox's Orange Pippin": make(name="Cox's Orange Pippin", catalog_number=6, synonyms=["Cox"]),
        "Elstar": make(name="Elstar", catalog_number=7),
        "Williams": make(name="Williams", catalog_number=8, type=FruitType.PEAR),
        "Sauerkirsche": make(name="Sauerkirsche", catalog_number=9, type=FruitType.CHERRY),
        "Himbeere": make(name="Himbeere", catalog_number=10, type=FruitType.BERRY),
    }
    relate(
        curator_client,
        fruits["Jonagold"],
        [
            {"kind": "mother", "fruit_id": fruits["Golden Delicious"].pk},
            {"kind": "father", "fruit_id": fruits["Jonathan"].pk},
            {"kind": "confused_with", "name": "Jonagored"},
        ],
    )
    relate(
        curator_client,
        fruits["Red Jonagold"],
        [{"kind": "sport_of", "fruit_id": fruits["Jonagold"].pk}],
    )
    relate(
        curator_client,
        fruits["Cox's Orange Pippin"],
        [{"kind": "seedling_of", "fruit_id": fruits["Ribston Pippin"].pk}],
    )
    relate(
        curator_client,
        fruits["Elstar"],
        [
            {"kind": "parent", "fruit_id": fruits["Golden Delicious"].pk},
            {"kind": "parent", "name": "Ingrid Marie"},
        ],
    )
    image = FruitImage.objects.create(
        fruit=fruits["Jonagold"],
        data=make_object_png(size=(120, 90)),
        alt_text="A red-flushed Jonagold on the tree",
        creator="Jane Doe",
        license="CC-BY-4.0",
        source="Own photo",
    )
    plain = FruitImage.objects.create(
        fruit=fruits["Williams"], data=make_object_png(), role="blossom"
    )
    gone = make(name="Gone", catalog_number=11)
    kept = FruitImage.objects.create(fruit=gone, data=make_object_png())
    fruit_delete(fruit=gone)
    return {"fruits": fruits, "image": image, "plain_image": plain, "kept_image_id": kept.pk}


@pytest.fixture
def described(orchard, curator_client):
    """Jonagold's size (medium to large, after Lucas p. 112, with a note) and shape (nominal)."""
    size = make_characteristic("t_size", types=("apple",), reference="UPOV TG/14/9, 5")
    shape = make_characteristic(
        "t_shape",
        types=("apple", "pear"),
        scale="nominal",
        states=[{"value": 1, "label": "globose"}, {"value": 2, "label": "conical"}],
    )
    jonagold = orchard["fruits"]["Jonagold"]
    publication = PublicationFactory(title="Deutschlands Obstsorten", authors="Lucas", year=1905)
    publication_link_fruit(publication=publication, fruit=jonagold)
    values = {
        jonagold: [
            {
                "code": "t_size",
                "values": [5, 7],
                "source_publication": publication.pk,
                "pages": "112",
                "note": "in good years",
            }
        ],
        orchard["fruits"]["Williams"]: [{"code": "t_shape", "values": [2]}],
    }
    for fruit, entries in values.items():
        response = curator_client.patch(
            f"/api/v1/fruits/{fruit.pk}", {"characteristics": entries}, format="json"
        )
        assert response.status_code == 200, response.json()
    return {**orchard, "size": size, "shape": shape, "publication": publication}
