"""The Darwin Core Archive's names: each fruit a cultivar of its type's taxon (ICNCP)."""

import pytest
from dwca.read import DwCAReader

from catalog.models import FruitType
from core.testing.streams import body

pytestmark = pytest.mark.django_db

DWCA = "/api/v1/exports/dwca.zip"
DWC = "http://rs.tdwg.org/dwc/terms/"
NAMED = ["scientificName", "cultivarEpithet", "taxonRank"]


def read_taxa(client, tmp_path) -> dict:
    """The archive's core rows by id, each as {term without its namespace: value}."""
    path = tmp_path / "dwca.zip"
    path.write_bytes(body(client.get(DWCA)))
    with DwCAReader(str(path)) as archive:
        return {
            row.id: {term.removeprefix(DWC): value for term, value in row.data.items()}
            for row in archive
        }


def page(fruit) -> str:
    return f"http://testserver/fruits/{fruit.pk}/"


def test_a_cultivar_is_named_after_its_species_or_its_genus_with_its_epithet_apart(
    anon_client, fruit_factory, tmp_path
):
    gravensteiner = fruit_factory(name="Gravensteiner", catalog_number=1)
    stella = fruit_factory(name="Stella", type=FruitType.CHERRY, catalog_number=2)
    cox = fruit_factory(name="Cox's Orange Pippin", catalog_number=3)
    taxa = read_taxa(anon_client, tmp_path)
    assert {term: taxa[page(gravensteiner)][term] for term in NAMED} == {
        "scientificName": "Malus domestica 'Gravensteiner'",
        "cultivarEpithet": "Gravensteiner",
        "taxonRank": "cultivar",
    }
    # Sweet and sour cherries are two species: the genus alone, never the bare "Stella".
    assert {term: taxa[page(stella)][term] for term in NAMED} == {
        "scientificName": "Prunus 'Stella'",
        "cultivarEpithet": "Stella",
        "taxonRank": "cultivar",
    }
    assert taxa[page(cox)]["scientificName"] == "Malus domestica 'Cox's Orange Pippin'"
    assert taxa[page(cox)]["cultivarEpithet"] == "Cox's Orange Pippin"


def test_every_fruit_type_names_its_taxon_and_none_leaves_a_bare_epithet(
    anon_client, fruit_factory, tmp_path
):
    fruits = {
        fruit_type: fruit_factory(name="Stella", type=fruit_type, catalog_number=number)
        for number, fruit_type in enumerate(FruitType.values, start=1)
    }
    taxa = read_taxa(anon_client, tmp_path)
    named = {
        fruit_type: taxa[page(fruit)]["scientificName"] for fruit_type, fruit in fruits.items()
    }
    assert named == {
        "apple": "Malus domestica 'Stella'",
        "pear": "Pyrus communis 'Stella'",
        "quince": "Cydonia oblonga 'Stella'",
        "cherry": "Prunus 'Stella'",
        "plum": "Prunus domestica 'Stella'",
        "apricot": "Prunus armeniaca 'Stella'",
        "peach": "Prunus persica 'Stella'",
        "grape": "Vitis vinifera 'Stella'",
        # Several genera: no genus to name, the quotes still say it is a cultivar epithet.
        "berry": "'Stella'",
        "citrus": "Citrus 'Stella'",
        "nut": "'Stella'",
        "other": "'Stella'",
    }
    assert {taxon["cultivarEpithet"] for taxon in taxa.values()} == {"Stella"}
    assert {taxon["kingdom"] for taxon in taxa.values()} == {"Plantae"}


def read_vernacular_names(client, tmp_path) -> dict:
    """The names of `vernacularname.txt` by core id."""
    path = tmp_path / "names.zip"
    path.write_bytes(body(client.get(DWCA)))
    names: dict = {}
    with DwCAReader(str(path)) as archive:
        for row in archive:
            for extension in row.extensions:
                if extension.rowtype == "http://rs.gbif.org/terms/1.0/VernacularName":
                    names.setdefault(row.id, set()).add(extension.data[f"{DWC}vernacularName"])
    return names


def test_a_misapplied_name_is_no_vernacular_name_but_a_misapplied_usage_of_its_fruit(
    anon_client, fruit_factory, tmp_path
):
    gravensteiner = fruit_factory(
        name="Gravensteiner",
        catalog_number=1,
        names=[
            {"name": "Grafensteiner", "kind": "synonym"},
            {"name": "Ernteapfel", "kind": "trade_name", "language": "de"},
            {"name": "Roter Gravensteiner", "kind": "misapplied"},
        ],
    )
    stella = fruit_factory(
        name="Stella",
        type=FruitType.CHERRY,
        catalog_number=2,
        names=[{"name": "Lambert", "kind": "misapplied"}],
    )
    assert read_vernacular_names(anon_client, tmp_path) == {
        page(gravensteiner): {"Grafensteiner", "Ernteapfel"}
    }
    taxa = read_taxa(anon_client, tmp_path)
    assert taxa[page(gravensteiner)]["taxonomicStatus"] == "accepted"
    assert taxa[page(gravensteiner)]["acceptedNameUsageID"] == ""
    usage = ["scientificName", "cultivarEpithet", "taxonRank", "taxonomicStatus"]
    misapplied = taxa[f"{page(gravensteiner)}#misapplied-Roter%20Gravensteiner"]
    assert {term: misapplied[term] for term in usage} == {
        "scientificName": "Malus domestica 'Roter Gravensteiner'",
        "cultivarEpithet": "Roter Gravensteiner",
        "taxonRank": "cultivar",
        "taxonomicStatus": "misapplied",
    }
    assert misapplied["acceptedNameUsageID"] == page(gravensteiner)
    assert misapplied["vernacularName"] == ""
    lambert = taxa[f"{page(stella)}#misapplied-Lambert"]
    assert lambert["scientificName"] == "Prunus 'Lambert'"
    assert lambert["acceptedNameUsageID"] == page(stella)
    assert len(taxa) == 4
