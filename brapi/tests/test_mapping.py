"""The mapping's pure parts, row by row, without a database: pedigree strings, parent types,
taxa, names, images' names and rights."""

import pytest

from brapi import mapping


def relation(kind, name, fruit_id=None):
    return mapping.Related(kind, name, fruit_id)


def fruit(pk=1, *, name="Jonagold", type="apple", number=3, names=(), relations=(), related=()):
    """A fruit as `reads.germplasm()` and `reads.pedigree()` give it: a dict of the row."""
    return {
        "id": pk,
        "name": name,
        "type": type,
        "catalog_number": number,
        # As `with_names()`, `reads.with_ancestry` and `with_descendants` annotate them.
        "name_list": [[n["name"], n["kind"], n["language"], n["note"]] for n in names],
        "ancestry": [
            [r.kind, f"stored {r.name}", r.fruit_id, r.name]
            if r.fruit_id
            else [r.kind, r.name, None, None]
            for r in relations
        ],
        "descendants": [[r.kind, r.fruit_id, r.name] for r in related],
    }


def page_url(pk):
    return f"https://fruit.example/fruits/{pk}/"


@pytest.mark.parametrize(
    ("relations", "expected"),
    [
        ([], ""),
        ([relation("mother", "A", 2), relation("father", "B")], "A/B"),
        ([relation("father", "B", 3)], "UNKNOWN/B"),
        ([relation("seedling_of", "A", 2)], "A/UNKNOWN"),
        ([relation("sport_of", "A", 2)], "sport of A"),
        ([relation("parent", "A"), relation("parent", "B", 3)], "cross involving A and B"),
        ([relation("mother", "A"), relation("seedling_of", "C")], "A or C/UNKNOWN"),
        ([relation("confused_with", "X")], ""),
        (
            [relation("sport_of", "S"), relation("mother", "A"), relation("parent", "P")],
            "A/UNKNOWN; cross involving P; sport of S",
        ),
    ],
)
def test_pedigree_strings(relations, expected):
    assert mapping.pedigree_string(relations) == expected


def test_parent_types_of_every_kind_of_descent():
    assert mapping.PARENT_TYPES == {
        "mother": "FEMALE",
        "father": "MALE",
        "seedling_of": "FEMALE",
        "sport_of": "CLONAL",
    }
    # A parent of unknown role has no BrAPI type: none of v2.1's is neutral.
    assert "parent" not in mapping.PARENT_TYPES


@pytest.mark.parametrize(
    ("fruit_type", "expected"),
    [
        ("apple", {"genus": "Malus", "species": "domestica"}),
        ("cherry", {"genus": "Prunus"}),
        ("citrus", {"genus": "Citrus"}),
        ("berry", {}),
        ("other", {}),
    ],
)
def test_taxa_come_from_the_types_table(fruit_type, expected):
    assert mapping.taxon_fields(fruit_type) == expected
    record = mapping.germplasm(fruit(type=fruit_type), page_url=page_url)
    assert {k: record[k] for k in ("genus", "species") if k in record} == expected


def test_germplasm_leaves_out_what_the_catalog_does_not_know():
    record = mapping.germplasm(fruit(number=None, type="berry"), page_url=page_url)
    assert "accessionNumber" not in record and "pedigree" not in record
    assert record["germplasmDbId"] == "1" and record["germplasmName"] == "Jonagold"
    assert "genus" not in record and record["synonyms"] == []
    assert record["germplasmPUI"] == record["documentationURL"] == "https://fruit.example/fruits/1/"


def test_synonyms_keep_their_kinds_and_misapplied_names_are_left_out():
    names = [
        {"name": "Jonnie", "kind": "trade_name", "language": "", "note": ""},
        {"name": "Wrong", "kind": "misapplied", "language": "", "note": ""},
        {"name": "Jona", "kind": "synonym", "language": "", "note": ""},
    ]
    record = mapping.germplasm(fruit(names=names), page_url=page_url)
    assert record["synonyms"] == [
        {"synonym": "Jonnie", "type": "trade_name"},
        {"synonym": "Jona", "type": "synonym"},
    ]
    assert mapping.mcpd(fruit(names=names), page_url=page_url)["accessionNames"] == [
        "Jonagold",
        "Jonnie",
        "Jona",
    ]


def test_a_germplasm_names_its_parentage():
    parentage = [relation("mother", "Golden Delicious", 2), relation("father", "Jonathan")]
    record = mapping.germplasm(fruit(relations=parentage), page_url=page_url)
    # A parent in the catalog by its own name, one known by name alone by the stored name.
    assert record["pedigree"] == "Golden Delicious/Jonathan"
    assert mapping.mcpd(fruit(relations=parentage), page_url=page_url)["ancestralData"] == (
        "Golden Delicious/Jonathan"
    )
    assert mapping.mcpd(fruit(number=7), page_url=page_url)["accessionNumber"] == "7"


def test_a_pedigree_node_lists_only_relations_to_fruits_with_a_type():
    node = mapping.pedigree_node(
        fruit(
            relations=[
                relation("mother", "A", 2),
                relation("father", "Unknown Pollinator"),  # by name only: no id to give
                relation("parent", "P", 5),
            ],
            related=[
                relation("sport_of", "Red Jonagold", 7),
                relation("parent", "Elstar", 8),
            ],
        ),
        page_url=page_url,
    )
    assert node["parents"] == [{"germplasmDbId": "2", "germplasmName": "A", "parentType": "FEMALE"}]
    assert node["progeny"] == [
        {"germplasmDbId": "7", "germplasmName": "Red Jonagold", "parentType": "CLONAL"}
    ]
    assert node["additionalInfo"] == {"parentsOfUnknownRole": "5", "progenyOfUnknownRole": "8"}
    assert node["pedigreeString"] == "A/Unknown Pollinator; cross involving P"
    bare = mapping.pedigree_node(fruit(), page_url=page_url, parents=False, progeny=False)
    assert set(bare) == {"germplasmDbId", "germplasmPUI", "germplasmName", "defaultDisplayName"}


def test_image_names_read_back():
    assert mapping.image_name("Williams", "blossom") == "Williams, blossom"
    assert mapping.parse_image_name("Williams, Christ, cut fruit") == (
        "Williams, Christ",
        "section",
    )
    assert mapping.parse_image_name("Williams") is None
    assert mapping.parse_image_name("Williams, flower") is None


@pytest.mark.parametrize(
    ("creator", "license", "expected"),
    [
        ("", "", ""),
        ("Jane", "", "Jane"),
        ("", "public-domain", "Public domain"),
        ("Jane", "CC0-1.0", "Jane; CC0 1.0 (https://creativecommons.org/publicdomain/zero/1.0/)"),
    ],
)
def test_copyright_from_creator_and_licence(creator, license, expected):
    assert mapping.copyright_text(creator, license) == expected
