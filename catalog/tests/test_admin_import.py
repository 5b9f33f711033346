"""The admin's import page: what its confirmation offers."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

pytestmark = pytest.mark.django_db

IMPORT_URL = reverse("admin:catalog_fruit_import")


def test_the_confirm_button_counts_the_new_and_changed_fruits(admin_client, fruit_factory):
    fruit_factory(name="Topaz", catalog_number=9)
    fruit_factory(name="Elstar", catalog_number=11)
    upload = SimpleUploadedFile(
        "fruits.csv",
        b"catalog_number,name,type\n9,Topaz,pear\n10,Rubinola,apple\n12,Santana,apple\n"
        b"11,Elstar,apple\n",
        content_type="text/csv",
    )

    preview = admin_client.post(IMPORT_URL, {"file": upload})

    assert 'value="Import 2 new and 1 changed"' in preview.text


def test_the_preview_shows_each_changed_cell_old_and_new(admin_client, fruit_factory):
    fruit_factory(name="Topaz", catalog_number=9, synonyms=["Topas"])
    fruit_factory(name="Elstar", catalog_number=11)
    upload = SimpleUploadedFile(
        "fruits.csv",
        b"catalog_number,name,type,synonyms\n9,Topaz,pear,Topas; Topaze\n11,Elstar,apple,\n",
        content_type="text/csv",
    )

    text = admin_client.post(IMPORT_URL, {"file": upload}).text

    changed = text[text.index('<tr class="import-changed">') :].split("</tr>")[0]
    assert "<td>Topaz</td>" in changed  # an unchanged cell is shown as it is
    assert "<del>apple</del> → <ins>pear</ins>" in changed
    assert "<del>Topas</del> → <ins>Topas; Topaze</ins>" in changed
    unchanged = text[text.index('<tr class="import-unchanged">') :].split("</tr>")[0]
    assert "<del>" not in unchanged
