"""Undoing an import: its new fruits deleted (and restorable), its changed fruits put back, a
fruit changed since left alone (a 409, or `force`), once, for curators, in bounded reads."""

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import Fruit, FruitRelation, ImportBatch
from catalog.services import fruit_update
from identification.tests.helpers import describe
from publications.services import publication_link_fruit
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"
IMPORTS = "/api/v1/imports"
HEADER = "catalog_number,name,type,synonyms,char:fruit_size\n"


def post_import(client, body: str):
    response = client.post(f"{IMPORTS}/fruits", body, content_type="text/csv")
    assert response.status_code == 200, response.content
    assert not response.json()["errors"]
    return ImportBatch.objects.order_by("-pk").first()


def undo(client, batch, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return client.post(f"{IMPORTS}/{batch.pk}/undo" + (f"?{query}" if query else ""))


def state_of(fruit: Fruit) -> tuple:
    """What an undo puts back: the fields, the other names and the characteristic values."""
    fruit.refresh_from_db()
    values = {
        value.characteristic.code: sorted(state.value for state in value.states.all())
        for value in fruit.characteristics.all()
    }
    names = list(fruit.names.order_by("position").values_list("name", "kind"))
    return fruit.name, fruit.type, fruit.catalog_number, names, values


@pytest.fixture
def gravensteiner(fruit_factory):
    """A stored apple with a synonym and a size, which the imports below change."""
    fruit = fruit_factory(name="Gravensteiner", catalog_number=7, synonyms=["Gravensteiner Apfel"])
    describe(fruit, {"fruit_size": [5]})
    return fruit


def test_undoing_an_api_import_deletes_its_new_fruits_and_puts_back_the_changed_ones(
    curator_client, gravensteiner
):
    before = state_of(gravensteiner)
    batch = post_import(
        curator_client,
        HEADER
        + "7,Roter Gravensteiner,apple,Blutapfel,7\n8,Kaiser Wilhelm,apple,Wilhelmsapfel,5\n",
    )
    assert state_of(gravensteiner) != before
    created = Fruit.objects.get(name="Kaiser Wilhelm")

    response = undo(curator_client, batch)

    assert response.status_code == 200, response.content
    body = response.json()
    assert {key: body[key] for key in ("batch", "deleted", "reverted", "left", "conflicts")} == {
        "batch": batch.pk,
        "deleted": 1,
        "reverted": 1,
        "left": 0,
        "conflicts": [],
    }
    assert state_of(gravensteiner) == before
    assert not Fruit.objects.filter(pk=created.pk).exists()
    (deleted,) = curator_client.get("/api/v1/deleted-fruits").json()["results"]
    assert (deleted["id"], deleted["name"], deleted["catalog_number"]) == (
        created.pk,
        "Kaiser Wilhelm",
        8,
    )
    newest = curator_client.get(f"{FRUITS}/{gravensteiner.pk}/history").json()["results"][0]
    assert (newest["action"], newest["user"], newest["via"], newest["batch"]) == (
        "reverted",
        "curator",
        "api",
        None,
    )
    assert newest["changes"]["name"] == {"from": "Roter Gravensteiner", "to": "Gravensteiner"}
    (listed,) = curator_client.get(IMPORTS).json()["results"]
    assert listed["undone_at"] == body["undone_at"] is not None

    restored = curator_client.post(f"/api/v1/deleted-fruits/{created.pk}/restore")
    assert restored.status_code == 201, restored.content
    assert [name["name"] for name in restored.json()["names"]] == ["Wilhelmsapfel"]


def test_undoing_an_import_of_the_command_puts_back_what_it_changed(
    curator_client, gravensteiner, tmp_path
):
    before = state_of(gravensteiner)
    path = tmp_path / "autumn.csv"
    path.write_text(HEADER + "7,Gravensteiner,pear,,\n9,Ontario,apple,,3\n")
    call_command("import_fruits", str(path), stdout=io.StringIO())
    batch = ImportBatch.objects.get()
    gravensteiner.refresh_from_db()
    # Retyped to a pear: the apple's size went with it.
    assert state_of(gravensteiner)[1::3] == ("pear", {})

    response = undo(curator_client, batch)

    assert response.status_code == 200, response.content
    assert (response.json()["deleted"], response.json()["reverted"]) == (1, 1)
    assert state_of(gravensteiner) == before
    assert not Fruit.objects.filter(name="Ontario").exists()


def test_a_fruit_changed_since_the_import_is_a_409_and_nothing_is_undone(
    curator_client, gravensteiner
):
    batch = post_import(
        curator_client, HEADER + "7,Roter Gravensteiner,apple,,\n8,Kaiser Wilhelm,apple,,\n"
    )
    changed = curator_client.patch(
        f"{FRUITS}/{gravensteiner.pk}", {"name": "Gravensteiner Rot"}, format="json"
    )
    assert changed.status_code == 200, changed.content
    after = state_of(gravensteiner)

    response = undo(curator_client, batch)

    assert response.status_code == 409, response.content
    assert response.json()["conflicts"] == [gravensteiner.pk]
    assert "detail" in response.json()
    assert state_of(gravensteiner) == after
    assert Fruit.objects.filter(name="Kaiser Wilhelm").exists()
    batch.refresh_from_db()
    assert batch.undone_at is None


def test_force_undoes_the_rest_and_leaves_the_fruits_changed_since(curator_client, gravensteiner):
    batch = post_import(
        curator_client, HEADER + "7,Roter Gravensteiner,apple,,\n8,Kaiser Wilhelm,apple,,\n"
    )
    kaiser = Fruit.objects.get(name="Kaiser Wilhelm")
    describe(kaiser, {"fruit_size": [9]})  # a change since: through a service, no door
    after = state_of(kaiser)

    response = undo(curator_client, batch, force="true")

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["deleted"], body["reverted"], body["left"], body["conflicts"]) == (
        0,
        1,
        1,
        [kaiser.pk],
    )
    assert state_of(kaiser) == after
    assert state_of(gravensteiner)[0] == "Gravensteiner"


def test_undoing_twice_is_a_409(curator_client):
    batch = post_import(curator_client, HEADER + "8,Kaiser Wilhelm,apple,,\n")
    assert undo(curator_client, batch).status_code == 200

    again = undo(curator_client, batch, force="true")

    assert again.status_code == 409
    assert again.json()["conflicts"] == []


def test_an_unknown_import_is_a_404_and_a_bad_force_a_400(curator_client):
    assert undo(curator_client, ImportBatch(pk=999999)).status_code == 404
    batch = post_import(curator_client, HEADER + "8,Kaiser Wilhelm,apple,,\n")
    assert undo(curator_client, batch, force="maybe").status_code == 400
    assert Fruit.objects.filter(name="Kaiser Wilhelm").exists()


def test_only_curators_undo(curator_client, anon_client, reader_client):
    batch = post_import(curator_client, HEADER + "8,Kaiser Wilhelm,apple,,\n")
    assert undo(anon_client, batch).status_code == 401
    assert undo(reader_client, batch).status_code == 403
    assert Fruit.objects.filter(name="Kaiser Wilhelm").exists()


def test_a_new_fruit_a_publication_cites_since_is_a_conflict(curator_client):
    batch = post_import(curator_client, HEADER + "8,Kaiser Wilhelm,apple,,\n")
    kaiser = Fruit.objects.get(name="Kaiser Wilhelm")
    publication_link_fruit(publication=PublicationFactory(), fruit=kaiser)

    response = undo(curator_client, batch)

    assert response.status_code == 409, response.content
    assert response.json()["conflicts"] == [kaiser.pk]
    forced = undo(curator_client, batch, force="true")
    assert (forced.json()["deleted"], forced.json()["left"]) == (0, 1)
    assert Fruit.objects.filter(pk=kaiser.pk).exists()


def test_a_fruit_whose_state_before_the_import_was_never_recorded_is_a_conflict(
    curator_client, gravensteiner
):
    Fruit.history.filter(id=gravensteiner.pk).delete()  # as a fruit older than the history
    gravensteiner.names.model.history.filter(fruit_id=gravensteiner.pk).delete()
    gravensteiner.characteristics.model.history.filter(fruit_id=gravensteiner.pk).delete()
    batch = post_import(curator_client, HEADER + "7,Roter Gravensteiner,apple,,\n")

    response = undo(curator_client, batch)

    assert response.status_code == 409
    assert response.json()["conflicts"] == [gravensteiner.pk]


def test_relations_the_import_linked_to_its_new_fruit_are_given_back_their_names(
    curator_client, fruit_factory
):
    child = fruit_factory(name="Jonagold")
    fruit_update(
        fruit=child,
        relations=[{"kind": "mother", "other_id": None, "name": "Golden Delicious", "note": ""}],
    )
    batch = post_import(curator_client, HEADER + "11,Golden Delicious,apple,,\n")
    golden = Fruit.objects.get(name="Golden Delicious")
    assert FruitRelation.objects.get(fruit=child).other_id == golden.pk

    response = undo(curator_client, batch)

    assert response.status_code == 200, response.content
    relation = FruitRelation.objects.get(fruit=child)
    assert (relation.other_id, relation.name) == (None, "Golden Delicious")
    assert not Fruit.objects.filter(pk=golden.pk).exists()


def history_reads(queries) -> int:
    """The statements that read a historical table."""
    return sum(
        1
        for query in queries
        if query["sql"].lstrip().upper().startswith("SELECT") and "historical" in query["sql"]
    )


def import_of(client, fruit_factory, count: int, start: int) -> tuple[ImportBatch, int]:
    """An import that changes `count` stored fruits and creates `count`."""
    rows = []
    for n in range(count):
        stored = fruit_factory(name=f"Apfel {start + n}", catalog_number=start + n)
        describe(stored, {"fruit_size": [5]})
        rows.append(f"{stored.catalog_number},Apfel {start + n} neu,apple,Neu {n},7")
        rows.append(f"{start + count + n},Birne {start + n},pear,,")
    return post_import(client, HEADER + "\n".join(rows) + "\n"), 2 * count


# What putting back or deleting one fruit costs (its writes, through the services, and their
# historical rows); the reads of the history do not grow with the fruits.
QUERIES_PER_FRUIT = 30


def test_an_undo_reads_the_history_of_30_fruits_in_as_many_queries_as_of_3(
    curator_client, fruit_factory
):
    counts = {}
    for count, start in ((3, 100), (30, 1000)):
        batch, fruits = import_of(curator_client, fruit_factory, count, start)
        with CaptureQueriesContext(connection) as queries:
            response = undo(curator_client, batch)
        assert response.status_code == 200, response.content
        assert (response.json()["deleted"], response.json()["reverted"]) == (count, count)
        counts[fruits] = (history_reads(queries.captured_queries), len(queries))
    (small_reads, small_total), (large_reads, large_total) = counts[6], counts[60]
    assert large_reads == small_reads
    assert large_total - small_total <= (60 - 6) * QUERIES_PER_FRUIT


# --- the admin -----------------------------------------------------------------------------------

UNDO_PAGE = "/admin/catalog/importbatch/{}/undo/"


@pytest.fixture
def curator_admin(curator):
    """A curator in the admin: staff, in the Curators group."""
    from django.test import Client

    curator.is_staff = True
    curator.save()
    client = Client()
    client.force_login(curator)
    return client


def test_the_imports_list_shows_each_import_with_who_what_and_its_undo(
    curator_admin, curator_client, gravensteiner
):
    batch = post_import(
        curator_client, HEADER + "7,Roter Gravensteiner,apple,,\n8,Kaiser,apple,,\n"
    )
    undone = post_import(curator_client, HEADER + "9,Ontario,apple,,\n")
    assert undo(curator_client, undone).status_code == 200

    response = curator_admin.get("/admin/catalog/importbatch/")

    assert response.status_code == 200
    page = response.text
    assert "<h1>Imports</h1>" in page
    assert f'href="{UNDO_PAGE.format(batch.pk)}"' in page
    assert f'href="{UNDO_PAGE.format(undone.pk)}"' not in page
    row = page.split(f'href="{UNDO_PAGE.format(batch.pk)}"')[0].rsplit("<tr", 1)[1]
    assert ">curator<" in row and '<td class="field-new">1</td>' in row
    assert '<td class="field-changed">1</td>' in row


def test_the_undo_page_previews_the_changes_and_its_button_undoes_the_import(
    curator_admin, curator_client, gravensteiner
):
    before = state_of(gravensteiner)
    batch = post_import(
        curator_client,
        HEADER + "7,Roter Gravensteiner,apple,Blutapfel,7\n8,Kaiser Wilhelm,apple,,\n",
    )
    kaiser = Fruit.objects.get(name="Kaiser Wilhelm")

    preview = curator_admin.get(UNDO_PAGE.format(batch.pk))

    assert preview.status_code == 200
    page = preview.text
    deleted = page.split('id="undo-deleted-list"')[1].split("</table>")[0]
    assert "Kaiser Wilhelm" in deleted
    reverted = page.split('id="undo-reverted"')[1].split("</section>")[0]
    assert "Roter Gravensteiner</del>" in reverted and "Gravensteiner</ins>" in reverted
    assert "Blutapfel (Synonym)</del>" in reverted
    assert "Gravensteiner Apfel (Synonym)</ins>" in reverted
    assert "7 large</del>" in reverted and "5 medium</ins>" in reverted
    assert 'name="force"' not in page
    assert state_of(gravensteiner) != before  # a preview writes nothing

    response = curator_admin.post(UNDO_PAGE.format(batch.pk))

    assert response.status_code == 302
    assert response["Location"] == "/admin/catalog/importbatch/"
    assert state_of(gravensteiner) == before
    assert not Fruit.objects.filter(pk=kaiser.pk).exists()
    message = curator_admin.get(response["Location"]).text
    assert f"Import {batch.pk} was undone: 1 fruit(s) it created deleted" in message
    again = curator_admin.post(UNDO_PAGE.format(batch.pk), follow=True)
    assert f"Import {batch.pk} was undone already." in again.text


def test_the_undo_page_names_the_conflicts_and_undoes_the_rest_only_when_asked(
    curator_admin, curator_client, gravensteiner
):
    batch = post_import(
        curator_client, HEADER + "7,Roter Gravensteiner,apple,,\n8,Kaiser Wilhelm,apple,,\n"
    )
    curator_client.patch(
        f"{FRUITS}/{gravensteiner.pk}", {"name": "Gravensteiner Rot"}, format="json"
    )

    preview = curator_admin.get(UNDO_PAGE.format(batch.pk))

    conflicts = preview.text.split('id="undo-conflict-list"')[1].split("</table>")[0]
    assert "Gravensteiner Rot" in conflicts and "by curator, through the API" in conflicts
    assert 'name="force"' in preview.text

    refused = curator_admin.post(UNDO_PAGE.format(batch.pk))

    assert refused.status_code == 409
    assert "Nothing was undone: 1 fruit(s) were changed since the import" in refused.text
    assert Fruit.objects.filter(name="Kaiser Wilhelm").exists()

    forced = curator_admin.post(UNDO_PAGE.format(batch.pk), {"force": "on"})

    assert forced.status_code == 302
    assert not Fruit.objects.filter(name="Kaiser Wilhelm").exists()
    assert state_of(gravensteiner)[0] == "Gravensteiner Rot"
    batch.refresh_from_db()
    assert batch.undone_at is not None


def test_only_those_who_may_change_fruits_see_or_use_the_undo_page(curator_client, client):
    from django.contrib.auth.models import Permission, User

    batch = post_import(curator_client, HEADER + "8,Kaiser Wilhelm,apple,,\n")
    viewer = User.objects.create_user("viewer", password="viewer-pass-123", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_importbatch"))
    client.force_login(viewer)

    assert client.get("/admin/catalog/importbatch/").status_code == 200
    assert client.get(UNDO_PAGE.format(batch.pk)).status_code == 403
    assert client.post(UNDO_PAGE.format(batch.pk)).status_code == 403
    assert Fruit.objects.filter(name="Kaiser Wilhelm").exists()


def test_the_undo_page_of_30_fruits_takes_as_many_queries_as_of_3(
    curator_admin, curator_client, fruit_factory
):
    counts = {}
    for count, start in ((3, 100), (30, 1000)):
        batch, _ = import_of(curator_client, fruit_factory, count, start)
        with CaptureQueriesContext(connection) as queries:
            response = curator_admin.get(UNDO_PAGE.format(batch.pk))
        assert response.status_code == 200
        assert response.text.count("<del>") >= 3 * count
        counts[count] = len(queries)
    assert counts[30] == counts[3]


def test_two_imports_undone_newest_first_leave_the_catalog_as_before_them(curator_client):
    first = post_import(curator_client, "catalog_number,name,type\n31,Ontario,apple\n")
    second = post_import(curator_client, "catalog_number,name,type\n31,Ontario Rot,apple\n")

    assert undo(curator_client, second).status_code == 200
    # The first import's fruit is again what that import left: no conflict.
    response = undo(curator_client, first)

    assert response.status_code == 200, response.content
    assert response.json()["conflicts"] == []
    assert not Fruit.objects.filter(catalog_number=31).exists()
