"""Names hold no control, line-breaking or invisible formatting character, through any door."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import Fruit, FruitName
from catalog.tests.test_admin import FRUIT_ADD, IMPORT_URL, fruit_change_url, fruit_form_data
from core.testing.admin_pages import form_errors

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"
IMPORTS = "/api/v1/imports/fruits"

REFUSED = {
    "tab": "\t",
    "line-feed": "\n",
    "carriage-return": "\r",
    "vertical-tab": "\x0b",
    "form-feed": "\x0c",
    "escape": "\x1b",
    "delete": "\x7f",
    "next-line": "\x85",
    "line-separator": "\u2028",
    "paragraph-separator": "\u2029",
    "right-to-left-override": "\u202e",
    "zero-width-space": "\u200b",
    "byte-order-mark": "\ufeff",
}
refused = pytest.mark.parametrize("char", REFUSED.values(), ids=REFUSED.keys())
# Names are spelled with these: a no-break space, and the zero-width non-joiner and joiner of
# Persian and Indic scripts.
KEPT = ["Reine\u00a0Claude", "\u0633\u06cc\u0628\u200c\u0632\u0645\u06cc\u0646\u06cc", "क्\u200dष"]


def words(char: str) -> str:
    return f"(U+{ord(char):04X} here)"


@refused
def test_the_api_refuses_a_fruit_name_holding_the_character(curator_client, char):
    response = curator_client.post(
        FRUITS, {"name": f"Topaz{char}Rot", "type": "apple"}, format="json"
    )
    assert response.status_code == 400
    (message,) = response.json()["name"]
    assert words(char) in message
    assert not Fruit.objects.exists()


@refused
@pytest.mark.parametrize("field", ["synonyms", "names"])
def test_the_api_refuses_another_name_holding_the_character(
    curator_client, fruit_factory, char, field
):
    fruit = fruit_factory(name="Topaz")
    value = [f"Topaz{char}Rot"] if field == "synonyms" else [{"name": f"Topaz{char}Rot"}]
    response = curator_client.patch(f"{FRUITS}/{fruit.pk}", {field: value}, format="json")
    assert response.status_code == 400
    (message,) = response.json()[field]
    assert words(char) in message
    assert not FruitName.objects.exists()


def test_the_api_refuses_a_related_name_holding_a_line_separator(curator_client, fruit_factory):
    fruit = fruit_factory(name="Topaz")
    relations = [{"kind": "mother", "name": "Vanda\u2028Rubin"}]
    response = curator_client.patch(f"{FRUITS}/{fruit.pk}", {"relations": relations}, format="json")
    assert response.status_code == 400
    assert words("\u2028") in response.json()["relations"][0]


@pytest.mark.parametrize("name", KEPT)
def test_names_spelled_with_joiners_and_no_break_spaces_are_kept(curator_client, name):
    response = curator_client.post(
        FRUITS, {"name": name, "type": "apple", "synonyms": [f"{name} 2"]}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert response.json()["name"] == name and response.json()["synonyms"] == [f"{name} 2"]


@refused
def test_the_admin_refuses_a_fruit_name_holding_the_character(admin_client, char):
    response = admin_client.post(FRUIT_ADD, fruit_form_data(name=f"Topaz{char}Rot"))
    assert response.status_code == 200
    assert words(char) in form_errors(response)
    assert not Fruit.objects.exists()


@refused
def test_the_admin_refuses_another_name_holding_the_character(admin_client, fruit_factory, char):
    fruit = fruit_factory(name="Topaz")
    response = admin_client.post(
        fruit_change_url(fruit), fruit_form_data(name="Topaz", names=[(f"Topaz{char}Rot", "")])
    )
    assert response.status_code == 200
    assert words(char) in form_errors(response)
    assert not FruitName.objects.exists()


def csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


@refused
@pytest.mark.parametrize("field", ["name", "synonyms"])
def test_an_import_refuses_a_name_holding_the_character_naming_the_column(
    curator_client, char, field
):
    cells = {"name": "Topaz", "synonyms": "Topaz Rot"} | {field: f"Topaz{char}Rot"}
    body = f"catalog_number,name,type,synonyms\n1,{csv_cell(cells['name'])},apple,"
    body += f"{csv_cell(cells['synonyms'])}\n"
    response = curator_client.post(IMPORTS, body.encode(), content_type="text/csv")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    line = 3 if char in "\n\r" else 2  # a record's row is its last line
    assert (error["row"], error["field"]) == (line, field), error
    assert words(char) in error["message"]
    assert not Fruit.objects.exists()


def test_the_admin_import_and_the_command_refuse_a_name_with_a_vertical_tab(admin_client, tmp_path):
    text = "catalog_number,name,type\n1,Topaz\x0bRot,apple\n"
    upload = SimpleUploadedFile("fruits.csv", text.encode(), content_type="text/csv")
    preview = admin_client.post(IMPORT_URL, {"file": upload})
    assert "1 error: nothing can be imported." in preview.text
    assert words("\x0b") in preview.text
    path = tmp_path / "fruits.csv"
    path.write_text(text)
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 error"):
        call_command("import_fruits", str(path), stderr=err)
    assert "row 2, name: A name may not hold control characters" in err.getvalue()
    assert not Fruit.objects.exists()
