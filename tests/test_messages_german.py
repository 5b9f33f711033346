"""The service's own messages in German when German is asked, the same in English otherwise.

The API by `Accept-Language: de` or `?lang=de`, the admin by the language cookie; codes, field
names and values stay as they are in both languages.
"""

import io
import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from catalog.models import Fruit, ImportBatch
from catalog.services import fruit_delete
from changes.feed import encode_cursor
from history.versions import fruit_versions

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"
GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


def both(send):
    """The English and the German answer of the same request."""
    return send({}), send(GERMAN)


def test_a_fruit_refused_by_the_services_own_check_is_refused_in_the_asked_language(
    curator_client,
):
    body = {"name": "Elstar", "type": "apple", "names": [], "synonyms": []}

    english, german = both(
        lambda headers: curator_client.post(FRUITS, body, format="json", **headers)
    )

    assert english.status_code == german.status_code == 400
    assert english.json() == {"names": ["Send either `names` or `synonyms`, not both."]}
    assert german.json() == {
        "names": ["Senden Sie entweder `names` oder `synonyms`, nicht beides."]
    }
    assert german["Content-Language"] == "de"


def test_a_fruits_names_are_checked_in_the_asked_language(curator_client):
    body = {"name": "Boskoop", "type": "apple", "names": [{"name": "boskoop"}]}

    english = curator_client.post(FRUITS, body, format="json")
    german = curator_client.post(f"{FRUITS}?lang=de", body, format="json")

    assert english.json() == {
        "names": ["'boskoop' is the fruit's own name, not another name of it."]
    }
    assert german.json() == {
        "names": ["'boskoop' ist der eigene Name der Sorte, kein weiterer Name."]
    }


def test_an_upload_that_is_no_image_is_refused_in_the_asked_language(curator_client, fruit_factory):
    fruit = fruit_factory()

    def send(headers):
        upload = io.BytesIO(b"just some words, no image")
        upload.name = "photo.png"
        return curator_client.post(
            f"{FRUITS}/{fruit.pk}/images", {"image": upload}, format="multipart", **headers
        )

    english, german = both(send)

    assert english.status_code == german.status_code == 400
    assert english.json() == {"image": ["Unsupported image type: text/plain."]}
    assert german.json() == {"image": ["Nicht unterstützter Bildtyp: text/plain."]}


def test_an_imports_row_errors_are_in_the_asked_language(curator_client):
    body = "catalog_number,name,type\n1,,apple\n2,Elstar,banana\n"

    english, german = both(
        lambda headers: curator_client.post(
            "/api/v1/imports/fruits", body, content_type="text/csv", **headers
        )
    )

    assert [error["message"] for error in english.json()["errors"]] == [
        "A name is required.",
        '"banana" is not a valid choice; one of apple, pear, quince, cherry, plum, apricot, '
        "peach, grape, berry, citrus, nut, other.",
    ]
    errors = german.json()["errors"]
    assert [error["message"] for error in errors] == [
        "Ein Name ist erforderlich.",
        '"banana" ist keine gültige Wahl; eine von apple, pear, quince, cherry, plum, apricot, '
        "peach, grape, berry, citrus, nut, other.",
    ]
    # Rows and columns are the file's: the same in both languages.
    assert [(e["row"], e["field"]) for e in errors] == [(2, "name"), (3, "type")]


def test_an_undo_refused_for_fruits_changed_since_says_so_in_the_asked_language(curator_client):
    imported = curator_client.post(
        "/api/v1/imports/fruits",
        "catalog_number,name,type\n7,Gravensteiner,apple\n",
        content_type="text/csv",
    )
    assert imported.status_code == 200, imported.content
    batch = ImportBatch.objects.get()
    fruit = Fruit.objects.get(catalog_number=7)
    curator_client.patch(f"{FRUITS}/{fruit.pk}", {"name": "Roter Gravensteiner"}, format="json")

    english, german = both(
        lambda headers: curator_client.post(f"/api/v1/imports/{batch.pk}/undo", **headers)
    )

    assert english.status_code == german.status_code == 409
    assert english.json()["detail"] == (
        "1 fruit(s) the import touched were changed since; nothing was undone. "
        "Undo the rest with force=true."
    )
    assert german.json()["detail"] == (
        "1 Sorte(n), die der Import berührt hat, wurden seitdem geändert; nichts wurde "
        "rückgängig gemacht. Den Rest machen Sie mit force=true rückgängig."
    )
    assert german.json()["conflicts"] == [fruit.pk]


def test_a_revert_to_a_number_another_fruit_holds_is_refused_in_the_asked_language(
    curator_client,
):
    created = curator_client.post(
        FRUITS, {"name": "Topaz", "type": "apple", "catalog_number": 5}, format="json"
    ).json()
    curator_client.patch(f"{FRUITS}/{created['id']}", {"catalog_number": 6}, format="json")
    other = curator_client.post(
        FRUITS, {"name": "Elstar", "type": "apple", "catalog_number": 5}, format="json"
    ).json()
    versions = curator_client.get(f"{FRUITS}/{created['id']}/history").json()["results"]
    first = versions[-1]["id"]

    english, german = both(
        lambda headers: curator_client.post(
            f"{FRUITS}/{created['id']}/history/{first}/revert", **headers
        )
    )

    assert english.status_code == german.status_code == 409, english.content
    assert english.json() == {"catalog_number": [f"Catalog number 5 is fruit {other['id']}'s now."]}
    assert german.json() == {
        "catalog_number": [f"Die Katalognummer 5 gehört jetzt der Sorte {other['id']}."]
    }


def test_the_feeds_gone_cursor_is_explained_in_the_asked_language(client):
    url = f"/api/v1/changes?after={encode_cursor(1_000_000)}"  # ahead of every change

    english, german = both(lambda headers: client.get(url, **headers))

    assert english.status_code == german.status_code == 410
    assert "start again from a full export" in english.json()["detail"]
    assert german.json()["detail"].startswith("Dieser Cursor ist älter als die älteste")
    bad = client.get("/api/v1/changes?after=nonsense&lang=de").json()
    assert bad == {
        "after": ["Kein Cursor dieses Feeds: Geben Sie das `next` einer früheren Antwort an."]
    }


def test_an_undo_of_no_import_is_a_404_in_the_asked_language(curator_client):
    english, german = both(
        lambda headers: curator_client.post("/api/v1/imports/999999/undo", **headers)
    )

    assert english.json() == {"detail": "Not found."}
    assert german.json() == {"detail": "Nicht gefunden."}


def test_the_admins_import_page_is_german_with_the_language_cookie(curator):
    curator.is_staff = True
    curator.save()
    desk = Client()
    desk.force_login(curator)
    url = reverse("admin:catalog_fruit_import")

    english = desk.get(url).content.decode()
    desk.cookies["django_language"] = "de"
    german = desk.get(url).content.decode()

    assert "Check the file" in english
    assert "Datei prüfen" in german and "Check the file" not in german
    assert "Sorten importieren" in german


def test_the_admins_deleted_fruits_page_is_german_with_the_language_cookie(curator, fruit_factory):
    curator.is_staff = True
    curator.save()
    fruit_delete(fruit=fruit_factory(name="Topaz"))
    desk = Client()
    desk.force_login(curator)
    desk.cookies["django_language"] = "de"

    german = desk.get(reverse("admin:catalog_fruit_deleted")).content.decode()

    assert "Gelöschte Sorten wiederherstellen" in german
    assert "Recover deleted fruits" not in german
    assert "Wiederherstellen…" in german
    assert '<th scope="col">Sorte</th>' in german and "Frucht" not in german
    assert "1 gelöschte Sorte" in german


@pytest.fixture
def german_desk(curator):
    """A curator's browser on the admin with the language cookie set to German."""
    curator.is_staff = True
    curator.save()
    desk = Client()
    desk.force_login(curator)
    desk.cookies["django_language"] = "de"
    return desk


def page_text(response) -> str:
    """The page's text, tags dropped, spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", response.content.decode())))


def a_renamed_fruit(curator_client) -> int:
    body = {"name": "Boskop", "type": "apple", "names": [{"name": "Renette de Montfort"}]}
    pk = curator_client.post(FRUITS, body, format="json").json()["id"]
    curator_client.patch(f"{FRUITS}/{pk}", {"name": "Boskoop", "names": []}, format="json")
    return pk


def test_the_admins_history_of_a_fruit_is_german_with_the_language_cookie(
    german_desk, curator_client
):
    pk = a_renamed_fruit(curator_client)

    german = page_text(german_desk.get(reverse("admin:catalog_fruit_history", args=[pk])))

    assert "Feld Vorher Nachher" in german
    assert "Von curator, über die API." in german
    assert "Auf diese Version zurücksetzen…" in german
    assert "2 Versionen" in german
    for english in ("Field", "Before", "Revert to this version", "through", "versions"):
        assert english not in german


def test_the_admins_revert_preview_and_its_notice_are_german_with_the_language_cookie(
    german_desk, curator_client
):
    pk = a_renamed_fruit(curator_client)
    created = fruit_versions(pk)[0]
    url = reverse("admin:catalog_fruit_revert", args=[pk, created.id])

    page = german_desk.get(url)
    german = page_text(page)
    reverted = german_desk.post(url, follow=True)

    assert "Feld Jetzt Nach dem Zurücksetzen" in german
    assert "Was sich ändern würde" in german
    assert "Hinzugefügt: Renette de Montfort" in german
    assert 'value="Auf diese Version zurücksetzen"' in page.content.decode()
    for english in ("What would change", "After the revert", "Revert to this version", "Added:"):
        assert english not in page.content.decode()
    notices = [str(message) for message in reverted.context["messages"]]
    assert notices == ["„1 Boskop“ wurde auf die gewählte Version zurückgesetzt."]


def test_the_admins_recovery_notice_is_german_with_the_language_cookie(german_desk, fruit_factory):
    fruit = fruit_factory(name="Topaz", catalog_number=42)
    pk = fruit.pk
    fruit_delete(fruit=fruit)

    response = german_desk.post(reverse("admin:catalog_fruit_recover", args=[pk]), follow=True)

    notices = [str(message) for message in response.context["messages"]]
    assert notices == ["„42 Topaz“ wurde wiederhergestellt."]


def test_the_admins_imports_and_an_undos_preview_are_german_with_the_language_cookie(
    german_desk, curator_client
):
    body = "catalog_number,name,type\n7,Topaz,apple\n"
    response = curator_client.post("/api/v1/imports/fruits", body, content_type="text/csv")
    assert response.status_code == 200, response.content
    batch = ImportBatch.objects.get()

    listed = page_text(german_desk.get(reverse("admin:catalog_importbatch_changelist")))
    page = german_desk.get(reverse("admin:catalog_importbatch_undo", args=[batch.pk]))
    preview = page_text(page)

    assert "Importe" in listed and "Neue Sorten" in listed and "Rückgängig machen…" in listed
    assert "New fruits" not in listed and "Undo…" not in listed
    assert "Erstellte Sorten: gelöscht (1)" in preview
    assert 'value="Diesen Import rückgängig machen"' in page.content.decode()
    for english in ("Fruits it created", "Undo this import", "Back to the imports"):
        assert english not in page.content.decode()
