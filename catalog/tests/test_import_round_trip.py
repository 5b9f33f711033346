"""The CSV export imported back gives every text as it was: formula guards and apostrophes."""

import itertools

import pytest

from catalog.exports import as_text_cell, from_text_cell
from catalog.models import Fruit
from core.testing.streams import body

CSV = "/api/v1/exports/fruits.csv"
IMPORTS = "/api/v1/imports/fruits"

# Texts a spreadsheet would run as a formula, texts that already start with the apostrophe the
# export adds, and plain ones.
TRICKY = [
    "=1+1",
    "'=x",
    "''=x",
    "'",
    "''",
    "'''",
    "+49",
    "'+49",
    "-",
    "@home",
    "'@home",
    "'plain",
    "it's",
    "plain",
    "\tindented",
    "'\tindented",
    "\rcarriage",
    "'\rcarriage",
]


@pytest.mark.parametrize("text", TRICKY)
def test_a_cell_the_export_writes_reads_back_as_its_text(text):
    cell = as_text_cell(text)
    assert from_text_cell(cell) == text
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))


def test_every_short_text_of_guard_characters_reads_back_as_it_was():
    alphabet = ["'", "=", "+", "-", "@", "\t", "\r", "a", " "]
    for length in range(5):
        for letters in itertools.product(alphabet, repeat=length):
            text = "".join(letters)
            assert from_text_cell(as_text_cell(text)) == text, repr(text)


# What a name can be: trimmed, and without tabs or line breaks.
STORABLE = [text for text in TRICKY if text == text.strip() and text.isprintable()]


@pytest.mark.django_db
def test_an_exported_catalog_imported_into_an_empty_one_has_every_name_as_it_was(
    anon_client, curator_client, fruit_factory
):
    for number, text in enumerate(STORABLE, start=1):
        fruit_factory(name=text, catalog_number=number, synonyms=[f"{text} ({number})", text * 2])
    before = names()
    exported = body(anon_client.get(CSV))

    again = curator_client.post(IMPORTS, exported, content_type="text/csv")
    assert again.json()["unchanged"] == len(STORABLE), again.json()

    Fruit.objects.all().delete()
    response = curator_client.post(IMPORTS, exported, content_type="text/csv")
    assert response.status_code == 200, response.json()
    assert response.json()["created"] == len(STORABLE)
    assert names() == before


def names() -> list[tuple]:
    return [
        (fruit.catalog_number, fruit.name, [name["name"] for name in fruit.name_list])
        for fruit in Fruit.objects.with_names().in_catalog_order()
    ]
