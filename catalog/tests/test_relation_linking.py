"""Relations given by name become links once the catalog has the variety: when a fruit of that
name (or another name of it) is created, renamed or imported, and by the fruits' admin action."""

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from catalog.models import Fruit, FruitRelation
from catalog.services import fruit_delete

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"
FRUIT_CHANGELIST = reverse("admin:catalog_fruit_changelist")
ACTION = "link_relations_by_name"


def create(client, name, **fields):
    response = client.post(FRUITS, {"name": name, "type": "apple", **fields}, format="json")
    assert response.status_code == 201, response.json()
    return Fruit.objects.get(pk=response.json()["id"])


def relations(client, fruit) -> list[tuple[str, int | None, str]]:
    """The fruit's relations as the API reads them: (kind, the related fruit's id, name)."""
    body = client.get(f"{FRUITS}/{fruit.pk}").json()
    return [
        (relation["kind"], relation["fruit"] and relation["fruit"]["id"], relation["name"])
        for relation in body["relations"]
    ]


@pytest.fixture
def elstar(curator_client):
    """Elstar, its parents given by name: neither is in the catalog yet."""
    return create(
        curator_client,
        "Elstar",
        relations=[
            {"kind": "mother", "name": "Golden Delicious"},
            {"kind": "father", "name": "Ingrid Marie"},
        ],
    )


def test_creating_the_named_variety_links_the_relation(curator_client, anon_client, elstar):
    golden = create(curator_client, "Golden Delicious")
    assert relations(anon_client, elstar) == [
        ("mother", golden.pk, "Golden Delicious"),
        ("father", None, "Ingrid Marie"),
    ]
    related = anon_client.get(f"{FRUITS}/{golden.pk}").json()["related"]
    assert [(r["kind"], r["fruit"]["id"]) for r in related] == [("child", elstar.pk)]


def test_another_name_of_the_new_fruit_links_it_ignoring_case(curator_client, anon_client, elstar):
    ingrid = create(curator_client, "Ingrid-Marie", synonyms=["INGRID MARIE"])
    assert relations(anon_client, elstar)[1] == ("father", ingrid.pk, "Ingrid-Marie")


def test_a_misapplied_name_links_nothing(curator_client, anon_client, elstar):
    create(
        curator_client,
        "Goldparmäne",
        names=[{"name": "Golden Delicious", "kind": "misapplied"}],
    )
    assert relations(anon_client, elstar)[0] == ("mother", None, "Golden Delicious")


def test_renaming_a_fruit_to_the_name_links_it(curator_client, anon_client, elstar):
    golden = create(curator_client, "Golden Delicius")
    assert relations(anon_client, elstar)[0][1] is None
    response = curator_client.patch(
        f"{FRUITS}/{golden.pk}", {"name": "Golden Delicious"}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert relations(anon_client, elstar)[0] == ("mother", golden.pk, "Golden Delicious")


def test_an_imported_fruit_links_the_relations_naming_it(tmp_path, anon_client, elstar):
    path = tmp_path / "fruits.csv"
    path.write_text("catalog_number,name,type,synonyms\n900,Golden Delicious,apple,\n")
    call_command("import_fruits", str(path), stdout=io.StringIO())
    golden = Fruit.objects.get(name="Golden Delicious")
    assert relations(anon_client, elstar)[0] == ("mother", golden.pk, "Golden Delicious")


def test_a_name_two_fruits_hold_stays_a_name(curator_client, anon_client):
    create(curator_client, "Golden Delicious Reinders", synonyms=["Golden Delicious"])
    elstar = create(
        curator_client, "Elstar", relations=[{"kind": "mother", "name": "Golden Delicious"}]
    )
    create(curator_client, "Golden Delicious")
    assert relations(anon_client, elstar) == [("mother", None, "Golden Delicious")]


def test_a_link_made_is_kept_when_a_second_fruit_takes_the_name(
    curator_client, anon_client, elstar
):
    reinders = create(curator_client, "Golden Delicious Reinders", synonyms=["Golden Delicious"])
    create(curator_client, "Golden Delicious")
    assert relations(anon_client, elstar)[0] == ("mother", reinders.pk, "Golden Delicious Reinders")


def test_a_link_that_would_make_a_loop_is_skipped(curator_client, anon_client):
    topaz = create(curator_client, "Topaz", relations=[{"kind": "mother", "name": "Rubin"}])
    # Rubin given as Topaz's daughter: linking Topaz's mother to it would close a loop.
    rubin = create(curator_client, "Rubin", relations=[{"kind": "mother", "fruit_id": topaz.pk}])
    assert relations(anon_client, topaz) == [("mother", None, "Rubin")]
    assert relations(anon_client, rubin) == [("mother", topaz.pk, "Topaz")]
    # A confusion is no descent: it is linked.
    vanda = create(
        curator_client,
        "Vanda",
        relations=[{"kind": "mother", "fruit_id": topaz.pk}],
    )
    patch = curator_client.patch(
        f"{FRUITS}/{topaz.pk}",
        {"relations": [{"kind": "confused_with", "name": "vanda"}]},
        format="json",
    )
    assert patch.status_code == 200
    assert relations(anon_client, topaz) == [("confused_with", None, "vanda")]
    curator_client.patch(f"{FRUITS}/{vanda.pk}", {"synonyms": ["Vanda rot"]}, format="json")
    assert relations(anon_client, topaz) == [("confused_with", vanda.pk, "Vanda")]


def test_a_deleted_fruit_is_linked_again_when_its_variety_comes_back(
    curator_client, anon_client, elstar
):
    golden = create(curator_client, "Golden Delicious")
    fruit_delete(fruit=golden)
    assert relations(anon_client, elstar)[0] == ("mother", None, "Golden Delicious")
    again = create(curator_client, "golden delicious")
    assert relations(anon_client, elstar)[0] == ("mother", again.pk, "golden delicious")


def test_a_new_fruit_with_no_relation_naming_it_costs_one_probe(
    curator_client, elstar, django_assert_num_queries
):
    from catalog.services import relations_link_to

    fruit = Fruit.objects.get(pk=elstar.pk)
    with django_assert_num_queries(1):
        report = relations_link_to(fruit=fruit, names=["Gravensteiner", "Gravenstein"])
    assert report.linked == 0


def test_a_link_by_name_yields_to_the_relations_the_admin_writes_with_the_fruit(
    admin_client, curator_client, anon_client
):
    from catalog.tests.test_admin import FRUIT_ADD, fruit_form_data
    from core.testing.admin_pages import form_errors, management_form

    topaz = create(curator_client, "Topaz", relations=[{"kind": "mother", "name": "Rubin"}])
    data = fruit_form_data(name="Rubin", catalog_number=7)
    data |= management_form("relations", total=1, initial=0)
    data |= {"relations-0-kind": "mother", "relations-0-other": topaz.pk}
    response = admin_client.post(FRUIT_ADD, data)
    assert response.status_code == 302, form_errors(response)
    rubin = Fruit.objects.get(name="Rubin")
    assert relations(anon_client, rubin) == [("mother", topaz.pk, "Topaz")]
    assert relations(anon_client, topaz) == [("mother", None, "Rubin")]


def test_the_admin_links_relations_naming_a_fruit_it_creates(
    admin_client, curator_client, anon_client, elstar
):
    from catalog.tests.test_admin import FRUIT_ADD, fruit_form_data
    from core.testing.admin_pages import form_errors

    response = admin_client.post(FRUIT_ADD, fruit_form_data(name="Ingrid Marie", catalog_number=8))
    assert response.status_code == 302, form_errors(response)
    ingrid = Fruit.objects.get(name="Ingrid Marie")
    assert relations(anon_client, elstar)[1] == ("father", ingrid.pk, "Ingrid Marie")


# --- the admin action ------------------------------------------------------------------------


def run_action(client, fruits):
    return client.post(
        FRUIT_CHANGELIST,
        {"action": ACTION, "_selected_action": [fruit.pk for fruit in fruits]},
        follow=True,
    )


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_the_action_links_relations_given_by_name_to_fruits_of_the_catalog(
    admin_client, curator_client, anon_client, fruit_factory
):
    golden = fruit_factory(name="Golden Delicious", catalog_number=1)
    fruit_factory(name="Rubin", catalog_number=2, synonyms=["Rubinola"])
    fruit_factory(name="Rubinola", catalog_number=3)
    # Given by name while their varieties were already catalogued: nothing links them yet.
    elstar = create(
        curator_client,
        "Elstar",
        relations=[
            {"kind": "mother", "name": "golden delicious"},
            {"kind": "father", "name": "Ingrid Marie"},
            {"kind": "confused_with", "name": "Rubinola"},
        ],
    )
    assert [fruit for _, fruit, _ in relations(anon_client, elstar)] == [None, None, None]
    assert ACTION in admin_client.get(FRUIT_CHANGELIST).text

    response = run_action(admin_client, [elstar])

    assert relations(anon_client, elstar) == [
        ("mother", golden.pk, "Golden Delicious"),
        ("father", None, "Ingrid Marie"),
        ("confused_with", None, "Rubinola"),
    ]
    assert messages_of(response) == [
        "Linked 1 relation(s) given by name to fruits of the catalog.",
        "Left by name, as several fruits hold the name (link them by hand): Rubinola.",
        "Also left by name: 1 whose name no other fruit holds, 0 whose fruit already has that "
        "relation to the named fruit.",
    ]
    # Run again, nothing is left to link.
    again = run_action(admin_client, [elstar])
    assert messages_of(again)[0] == "Linked 0 relation(s) given by name to fruits of the catalog."


def test_the_action_skips_a_link_that_would_make_a_loop_and_says_so(
    admin_client, curator_client, anon_client
):
    topaz = create(curator_client, "Topaz")
    rubin = create(curator_client, "Rubin", relations=[{"kind": "mother", "fruit_id": topaz.pk}])
    # By name, and the variety in the catalog: the loop is only closed by a link.
    FruitRelation.objects.create(fruit=topaz, kind="father", name="rubin")
    response = run_action(admin_client, [topaz, rubin])
    assert relations(anon_client, topaz) == [("father", None, "rubin")]
    assert (
        "Left by name, as linking would make a fruit its own ancestor: Topaz: father rubin."
        in messages_of(response)
    )


def test_the_action_needs_the_change_permission(client, django_user_model, fruit_factory):
    from django.contrib.auth.models import Permission

    curator = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    curator.user_permissions.add(Permission.objects.get(codename="view_fruit"))
    client.force_login(curator)
    fruit_factory(name="Elstar", catalog_number=1)
    assert ACTION not in client.get(FRUIT_CHANGELIST).text
    curator.user_permissions.add(Permission.objects.get(codename="change_fruit"))
    assert ACTION in client.get(FRUIT_CHANGELIST).text


# --- the key of relations stored before it ----------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_relations_stored_before_the_name_key_get_theirs(migrator):
    old_state = migrator.apply_initial_migration(("catalog", "0026_rename_fruitsynonym_fruitname"))
    OldFruit = old_state.apps.get_model("catalog", "Fruit")
    OldRelation = old_state.apps.get_model("catalog", "FruitRelation")
    elstar = OldFruit.objects.create(name="Elstar", type="apple")
    OldRelation.objects.create(fruit=elstar, kind="mother", name="Golden Delicious", position=0)
    OldRelation.objects.create(fruit=elstar, kind="father", name="INGRID MARIE", position=1)

    new_state = migrator.apply_tested_migration(("catalog", "0027_fruitrelation_name_key"))
    Relation = new_state.apps.get_model("catalog", "FruitRelation")
    assert sorted(Relation.objects.values_list("name_key", flat=True)) == [
        "golden delicious",
        "ingrid marie",
    ]
    migrator.reset()
