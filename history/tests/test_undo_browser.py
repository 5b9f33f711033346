"""The admin's Imports and an import's Undo in Chromium, at a laptop's width (1280 px) and a
phone's (390 px), checked with axe-core.

With `SCREENSHOTS_DIR` set (`SCREENSHOTS_DIR=docs/screenshots`), the 1280 px run writes the
pages docs/admin.md shows: admin-importbatch-changelist.png and admin-import-undo.png.
"""

import pytest
from django.contrib.auth.models import Permission, User
from django.db import transaction

from catalog.imports import import_fruits
from catalog.models import Fruit, ImportBatch
from catalog.services import fruit_save, fruit_update
from core.history import door
from core.testing.browser import (
    DESKTOP,
    PHONE,
    assert_accessible_within,
    log_in_to_admin,
    require_tools,
    screenshot,
)
from history.undo import import_undo
from identification.models import FruitCharacteristic
from identification.services import fruit_set_characteristics
from identification.tests.factories import make_characteristic

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CURATOR_PASSWORD = "curator-pass-123"


def imported(curator, text: str, file_name: str) -> ImportBatch:
    """The file imported through the admin's door, as the curator."""
    with door("admin", user=curator):
        report = import_fruits(text.encode(), dry_run=False, file_name=file_name)
    assert report.ok, report.errors
    return report.batch


def a_stored_apple(curator, number: int, text: str, synonyms: list[str], size=None) -> Fruit:
    names = [{"name": s, "kind": "synonym", "language": "", "note": ""} for s in synonyms]
    with door("admin", user=curator), transaction.atomic():
        fruit = fruit_save(fruit=Fruit(name=text, type="apple", catalog_number=number), names=names)
        if size is not None:
            state = size.states.get(value=5)
            record = {"characteristic_id": size.pk, "state_ids": [state.pk]}
            fruit_set_characteristics(
                fruit=fruit,
                records=[{**record, "source_publication_id": None, "pages": "", "note": ""}],
            )
    return fruit


def an_autumn_import(curator) -> tuple[ImportBatch, dict[str, Fruit]]:
    """Three stored apples, a spring import undone, and an autumn import that renamed two of
    them, gave one a synonym and created three; the third was changed in the admin since."""
    size = make_characteristic("size_of_fruit", name="Size of fruit")
    stored = {
        "gravensteiner": a_stored_apple(curator, 7, "Gravensteiner", ["Gravensteiner Apfel"], size),
        "boskoop": a_stored_apple(curator, 12, "Boskoop", ["Renette de Montfort"], size),
        "topaz": a_stored_apple(curator, 15, "Topaz", []),
    }
    spring = imported(curator, "catalog_number,name,type\n30,Finkenwerder Herbstprinz,apple\n", "")
    with door("admin", user=curator):
        import_undo(batch_id=spring.pk)
    autumn = imported(
        curator,
        "catalog_number,name,type,synonyms,char:size_of_fruit\n"
        "7,Roter Gravensteiner,apple,Blutapfel,7\n"
        "12,Schöner aus Boskoop,apple,Renette de Montfort;Belle de Boskoop,9\n"
        "15,Topaz,apple,Topas,\n"
        "20,Kaiser Wilhelm,apple,Wilhelmsapfel,5\n"
        "21,Ontario,apple,,7\n"
        "22,Jakob Fischer,apple,,\n",
        "autumn-2026.csv",
    )
    topaz = stored["topaz"]
    with door("admin", user=curator), transaction.atomic():
        fruit_update(fruit=Fruit.objects.get(pk=topaz.pk), name="Topaz (Ecolette, Vanda)")
    return autumn, stored


@pytest.fixture
def curator(db):
    """A staff user who may change and delete fruits and see the imports (the live server's
    tests flush the database, so the Curators group its migration made may be gone)."""
    user = User.objects.create_user("curator", password=CURATOR_PASSWORD, is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="catalog",
            codename__in=["view_fruit", "change_fruit", "delete_fruit", "view_importbatch"],
        )
    )
    return user


@pytest.fixture
def desk(admin_page, live_server, curator):
    """The curator logged in to the admin in Chromium, with axe-core at hand."""
    require_tools(axe=True)
    log_in_to_admin(admin_page, live_server, curator, CURATOR_PASSWORD)
    return admin_page


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_a_curator_previews_an_imports_undo_and_undoes_it_leaving_a_fruit_changed_since(
    desk, live_server, curator, viewport
):
    autumn, stored = an_autumn_import(curator)
    desk.set_viewport_size(viewport)

    desk.goto(f"{live_server.url}/admin/catalog/importbatch/")
    rows = desk.locator("#result_list tbody tr")
    assert rows.count() == 2
    assert "autumn-2026.csv" in rows.first.inner_text()  # the latest first
    assert rows.nth(1).get_by_role("link", name="Undo import").count() == 0  # undone
    assert_accessible_within(desk, viewport)
    screenshot(desk, "admin-importbatch-changelist.png", viewport)

    desk.get_by_role("link", name=f"Undo import {autumn.pk}…").click()
    desk.wait_for_selector("#undo-deleted")
    conflicts = desk.locator("#undo-conflict-list").inner_text()
    assert "Topaz (Ecolette, Vanda)" in conflicts and "through the admin" in conflicts
    deleted = desk.locator("#undo-deleted-list").inner_text()
    assert all(text in deleted for text in ("Kaiser Wilhelm", "Ontario", "Jakob Fischer"))
    reverted = desk.locator("#undo-reverted ~ .history-version, .history-version")
    assert reverted.count() == 2
    boskoop = reverted.filter(has_text="Schöner aus Boskoop")
    assert boskoop.locator("del", has_text="Schöner aus Boskoop").count() == 1
    assert boskoop.locator("ins", has_text="Boskoop").count() == 1
    assert boskoop.locator("del", has_text="Belle de Boskoop").count() == 1
    assert boskoop.locator("del", has_text="9").count() == 1
    assert_accessible_within(desk, viewport)
    screenshot(desk, "admin-import-undo.png", viewport)

    desk.get_by_role("button", name="Undo this import").click()
    desk.wait_for_selector("#undo-refusal")
    assert Fruit.objects.filter(name="Kaiser Wilhelm").exists()  # refused: nothing changed
    assert_accessible_within(desk, viewport)

    desk.get_by_label("Undo the rest and leave the 1 fruit above as it is").check()
    desk.get_by_role("button", name="Undo this import").click()
    desk.wait_for_selector(".messagelist .success")
    assert "1 fruit(s)" in desk.locator(".messagelist .warning").inner_text()
    assert not Fruit.objects.filter(catalog_number__in=[20, 21, 22]).exists()
    names = dict(Fruit.objects.filter(catalog_number__in=[7, 12, 15]).values_list("pk", "name"))
    assert names == {
        stored["gravensteiner"].pk: "Gravensteiner",
        stored["boskoop"].pk: "Boskoop",
        stored["topaz"].pk: "Topaz (Ecolette, Vanda)",
    }
    sizes = FruitCharacteristic.objects.filter(fruit__catalog_number__in=[7, 12])
    assert [value.states.get().value for value in sizes] == [5, 5]
