"""The fruits API through HTTP: representation, validation, list parameters, query budgets."""

import pytest

from catalog import search
from catalog.models import Fruit, FruitName
from catalog.validators import clean_names

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


def create(client, **body):
    return client.post(FRUITS, body, format="json")


def test_create_returns_201_with_location_and_the_fruit(curator_client):
    response = create(
        curator_client,
        name="  Schöner aus Boskoop ",
        type="apple",
        synonyms=[" Boskoop", "Belle de Boskoop"],
    )
    assert response.status_code == 201
    body = response.json()
    assert response["Location"] == f"http://testserver/api/v1/fruits/{body['id']}"
    assert body["name"] == "Schöner aus Boskoop"
    assert body["synonyms"] == ["Boskoop", "Belle de Boskoop"]
    assert body["catalog_number"] == 1
    assert body["thumbnail_url"] is None
    assert body["image_count"] == 0
    assert body["images"] == []
    assert body["created_at"].endswith("Z")


def test_catalog_number_is_assigned_as_maximum_plus_one(curator_client, fruit_factory):
    fruit_factory(catalog_number=41)
    assert create(curator_client, name="A", type="pear").json()["catalog_number"] == 42
    assert (
        create(curator_client, name="B", type="pear", catalog_number=None).json()["catalog_number"]
        == 43
    )


def test_duplicate_catalog_number_is_rejected(curator_client, fruit_factory):
    fruit_factory(catalog_number=7)
    response = create(curator_client, name="A", type="pear", catalog_number=7)
    assert response.status_code == 400
    assert "catalog_number" in response.json()


@pytest.mark.parametrize("value", [0, -1, 2147483648, 10**30, "abc", 1.5])
def test_out_of_range_catalog_numbers_are_rejected(curator_client, value):
    response = create(curator_client, name="A", type="pear", catalog_number=value)
    assert response.status_code == 400
    assert "catalog_number" in response.json()
    assert not Fruit.objects.exists()


def test_catalog_number_cannot_be_set_back_to_null(curator_client, fruit_factory):
    fruit = fruit_factory(catalog_number=5)
    response = curator_client.patch(f"{FRUITS}/{fruit.pk}", {"catalog_number": None}, format="json")
    assert response.status_code == 400
    assert Fruit.objects.get().catalog_number == 5


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "apple"}, "name"),
        ({"name": "   ", "type": "apple"}, "name"),
        ({"name": "x" * 201, "type": "apple"}, "name"),
        ({"name": "A"}, "type"),
        ({"name": "A", "type": "banana"}, "type"),
        ({"name": "A", "type": "apple", "synonyms": ["b", "B "]}, "synonyms"),
        ({"name": "Apfel", "type": "apple", "synonyms": ["APFEL"]}, "synonyms"),
        ({"name": "A", "type": "apple", "synonyms": [""]}, "synonyms"),
        ({"name": "A", "type": "apple", "synonyms": ["y" * 201]}, "synonyms"),
        ({"name": "A", "type": "apple", "synonyms": [f"s{i}" for i in range(101)]}, "synonyms"),
        ({"name": "A", "type": "apple", "synonyms": "not a list"}, "synonyms"),
        ({"name": "A", "type": "apple", "synonyms": [["nested"]]}, "synonyms"),
    ],
)
def test_invalid_fruits_are_rejected_and_nothing_is_stored(curator_client, body, field):
    response = curator_client.post(FRUITS, body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not Fruit.objects.exists()
    assert not FruitName.objects.exists()


def test_hundred_synonyms_are_accepted_in_order(curator_client):
    names = [f"Synonym {i:03}" for i in range(100)]
    response = create(curator_client, name="A", type="apple", synonyms=names)
    assert response.status_code == 201
    assert response.json()["synonyms"] == names


def test_writing_synonyms_replaces_the_whole_list(curator_client, fruit_factory):
    fruit = fruit_factory(name="Apfel", synonyms=["Eins", "Zwei"])
    response = curator_client.patch(
        f"{FRUITS}/{fruit.pk}", {"synonyms": ["Drei", "eins"]}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["synonyms"] == ["Drei", "eins"]
    assert curator_client.get(f"{FRUITS}?search=zwei").json()["count"] == 0
    assert curator_client.get(f"{FRUITS}?search=drei").json()["count"] == 1


def test_renaming_a_fruit_to_one_of_its_synonyms_is_rejected(curator_client, fruit_factory):
    fruit = fruit_factory(name="Apfel", synonyms=["Boskoop"])
    response = curator_client.patch(f"{FRUITS}/{fruit.pk}", {"name": "boskoop"}, format="json")
    assert response.status_code == 400
    assert "synonyms" in response.json()
    assert Fruit.objects.get().name == "Apfel"


def test_put_replaces_fields_and_keeps_the_catalog_number_when_omitted(
    curator_client, fruit_factory
):
    fruit = fruit_factory(name="Old", catalog_number=9, synonyms=["X"])
    response = curator_client.put(
        f"{FRUITS}/{fruit.pk}", {"name": "New", "type": "plum"}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["name"], body["type"], body["catalog_number"]) == ("New", "plum", 9)
    assert body["synonyms"] == ["X"]


def test_delete_removes_the_fruit_with_synonyms_and_images(
    curator_client, fruit_factory, add_image
):
    fruit = fruit_factory(synonyms=["A", "B"])
    add_image(fruit)
    assert curator_client.delete(f"{FRUITS}/{fruit.pk}").status_code == 204
    assert curator_client.get(f"{FRUITS}/{fruit.pk}").status_code == 404
    assert not FruitName.objects.exists()


def test_trailing_slash_works_without_redirect(anon_client, fruit_factory):
    fruit = fruit_factory()
    assert anon_client.get(f"{FRUITS}/").status_code == 200
    assert anon_client.get(f"{FRUITS}/{fruit.pk}/").json()["id"] == fruit.pk


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/fruits/abc",
        "/api/v1/fruits/-1",
        "/api/v1/fruits/1.5",
        "/api/v1/fruits/%0A1",
        "/api/v1/nothing-here",
        "/api/v2/fruits",
        "/api/",
    ],
)
def test_unknown_paths_under_api_answer_json_404(anon_client, path):
    for method in ("get", "post", "delete"):
        response = getattr(anon_client, method)(path)
        assert response.status_code == 404, (method, path)
        assert response["Content-Type"] == "application/json"
        assert response.json() == {"detail": "Not found."}


@pytest.mark.parametrize("fruit_id", ["99999999999999999999999999", "9223372036854775808", "0"])
def test_out_of_range_ids_are_404_for_every_method(curator_client, fruit_id):
    path = f"{FRUITS}/{fruit_id}"
    assert curator_client.get(path).status_code == 404
    assert curator_client.patch(path, {"name": "x"}, format="json").status_code == 404
    assert curator_client.delete(path).status_code == 404
    assert curator_client.get(f"{path}/images").status_code == 404


@pytest.mark.parametrize(
    "body",
    [b"{", b'{"name": "A", "type": ', b"\xff\xfe", b"[" * 50_000 + b"]" * 50_000, b"NaN"],
)
def test_malformed_json_is_a_400(curator_client, body):
    response = curator_client.generic("POST", FRUITS, body, content_type="application/json")
    assert response.status_code == 400
    assert "detail" in response.json()


def test_list_envelope_and_pagination(anon_client, fruit_factory):
    for number in range(1, 31):
        fruit_factory(catalog_number=number)
    body = anon_client.get(FRUITS).json()
    assert body["count"] == 30
    assert len(body["results"]) == 24
    assert body["previous"] is None
    assert body["next"] == "http://testserver/api/v1/fruits?page=2"
    page2 = anon_client.get(body["next"]).json()
    assert [f["catalog_number"] for f in page2["results"]] == list(range(25, 31))
    assert page2["previous"].startswith("http://testserver/api/v1/fruits")


@pytest.mark.parametrize(
    ("size", "expected"), [("5", 5), ("500", 30), ("0", 24), ("-3", 24), ("x", 24)]
)
def test_page_size_is_capped_and_bad_values_fall_back(anon_client, fruit_factory, size, expected):
    for _ in range(30):
        fruit_factory()
    with_cap = anon_client.get(f"{FRUITS}?page_size={size}").json()
    assert len(with_cap["results"]) == min(expected, 100)


@pytest.mark.parametrize("page", ["2", "0", "abc", "99999999999999999999"])
def test_page_out_of_range_is_invalid_page(anon_client, fruit_factory, page):
    fruit_factory()
    response = anon_client.get(f"{FRUITS}?page={page}")
    assert response.status_code == 404
    assert response.json() == {"detail": "Invalid page."}


def test_page_size_100_is_the_maximum(anon_client, fruit_factory):
    for _ in range(101):
        fruit_factory()
    assert len(anon_client.get(f"{FRUITS}?page_size=1000").json()["results"]) == 100


def test_filter_by_repeated_type(anon_client, fruit_factory):
    fruit_factory(name="Apple", type="apple")
    fruit_factory(name="Pear", type="pear")
    fruit_factory(name="Plum", type="plum")
    names = [f["name"] for f in anon_client.get(f"{FRUITS}?type=apple&type=plum").json()["results"]]
    assert names == ["Apple", "Plum"]
    assert anon_client.get(f"{FRUITS}?type=banana").status_code == 400


@pytest.mark.parametrize(
    "query", ["schoner", "SCHÖNER", "Schöner aus", "boskoop", "BELLE DE", "1042", "04"]
)
def test_search_is_case_and_accent_insensitive_across_name_synonyms_and_number(
    anon_client, fruit_factory, query
):
    fruit_factory(name="Schöner aus Boskoop", catalog_number=1042, synonyms=["Belle de Boskoop"])
    fruit_factory(name="Conference", type="pear", catalog_number=7)
    results = anon_client.get(FRUITS, {"search": query}).json()["results"]
    assert [f["name"] for f in results] == ["Schöner aus Boskoop"]


def test_search_folds_accents_in_stored_names_too(anon_client, fruit_factory):
    fruit_factory(name="Gräfin von Paris", synonyms=["Comtesse de Paris"])
    assert anon_client.get(FRUITS, {"search": "grafin"}).json()["count"] == 1
    assert anon_client.get(FRUITS, {"search": "GRÄFIN"}).json()["count"] == 1
    assert anon_client.get(FRUITS, {"search": "comtésse"}).json()["count"] == 1


def test_search_treats_like_wildcards_literally(anon_client, fruit_factory):
    fruit_factory(name="Plain")
    assert anon_client.get(FRUITS, {"search": "%"}).json()["count"] == 0
    assert anon_client.get(FRUITS, {"search": "_"}).json()["count"] == 0


def test_filter_by_catalog_number(anon_client, fruit_factory):
    fruit_factory(catalog_number=3)
    fruit_factory(catalog_number=33)
    assert [
        f["catalog_number"] for f in anon_client.get(f"{FRUITS}?catalog_number=3").json()["results"]
    ] == [3]
    assert anon_client.get(f"{FRUITS}?catalog_number=x").status_code == 400
    assert anon_client.get(f"{FRUITS}?catalog_number=99999999999999999999").status_code == 400


def test_default_order_is_catalog_number_with_nulls_last_then_id(anon_client, fruit_factory):
    b = fruit_factory(name="b", catalog_number=2)
    a = fruit_factory(name="a", catalog_number=1)
    legacy_1 = fruit_factory(name="legacy1", catalog_number=3)
    legacy_2 = fruit_factory(name="legacy2", catalog_number=4)
    Fruit.objects.filter(pk__in=[legacy_1.pk, legacy_2.pk]).update(catalog_number=None)
    ids = [f["id"] for f in anon_client.get(FRUITS).json()["results"]]
    assert ids == [a.pk, b.pk, legacy_1.pk, legacy_2.pk]
    ids = [f["id"] for f in anon_client.get(f"{FRUITS}?ordering=-catalog_number").json()["results"]]
    assert ids == [b.pk, a.pk, legacy_1.pk, legacy_2.pk]


@pytest.mark.parametrize("ordering", ["name", "-name", "created_at", "-updated_at"])
def test_ordering_by_each_field(anon_client, fruit_factory, ordering):
    for name in ["b", "c", "a"]:
        fruit_factory(name=name)
    results = anon_client.get(FRUITS, {"ordering": ordering}).json()["results"]
    key = ordering.lstrip("-")
    values = [r[key] for r in results]
    assert values == sorted(values, reverse=ordering.startswith("-"))


def test_unknown_ordering_is_a_400(anon_client):
    assert anon_client.get(f"{FRUITS}?ordering=secret").status_code == 400


@pytest.mark.parametrize("page_size", [1, 100])
def test_list_uses_constant_queries_and_never_selects_image_bytes(
    anon_client, fruit_factory, add_image, page_size, django_assert_max_num_queries, reads_no_bytes
):
    for index in range(120):
        fruit = fruit_factory(synonyms=[f"alias {index}", f"other {index}"])
        if index % 40 == 0:
            add_image(fruit)
    # count, the page's ids, its rows, their synonyms
    with reads_no_bytes(), django_assert_max_num_queries(4):
        body = anon_client.get(FRUITS, {"page_size": page_size}).json()
    assert len(body["results"]) == page_size
    first = body["results"][0]
    assert first["image_count"] == 1
    assert first["thumbnail_url"].startswith("http://testserver/api/v1/fruits/")


def test_detail_reads_no_image_bytes(
    anon_client, fruit_factory, add_image, django_assert_max_num_queries, reads_no_bytes
):
    fruit = fruit_factory(synonyms=["a"])
    for _ in range(3):
        add_image(fruit)
    anon_client.get(f"{FRUITS}/{fruit.pk}")  # the connection's one-time feature checks
    # The fruit (with its characteristics), its images, its relations, what others say of it,
    # its citations.
    with reads_no_bytes(), django_assert_max_num_queries(5):
        body = anon_client.get(f"{FRUITS}/{fruit.pk}").json()
    assert len(body["images"]) == 3


def test_empty_ordering_terms_fall_back_to_the_default_order(anon_client, fruit_factory):
    second = fruit_factory(catalog_number=2)
    first = fruit_factory(catalog_number=1)
    response = anon_client.get(f"{FRUITS}?ordering=,")
    assert response.status_code == 200
    assert [f["id"] for f in response.json()["results"]] == [first.pk, second.pk]


def test_json_body_over_djangos_limit_is_413(curator_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    body = {"name": "A" * 150, "type": "apple"}
    response = curator_client.post(FRUITS, body, format="json")
    assert response.status_code == 413
    assert "detail" in response.json()
    assert not Fruit.objects.exists()


@pytest.mark.parametrize(
    ("synonyms", "same"),
    [(["i", "İ"], False), (["Straße", "STRASSE"], True), (["ǅ", "ǆ"], True)],
    ids=["dotted-i", "sharp-s", "digraph"],
)
def test_synonyms_equal_under_unicode_case_folding_are_one_rule_on_every_database(
    curator_client, fruit_factory, synonyms, same
):
    fruit = fruit_factory(name="Apfel")
    patched = curator_client.patch(f"{FRUITS}/{fruit.pk}", {"synonyms": synonyms}, format="json")
    created = curator_client.post(
        FRUITS, {"name": "Birne", "type": "pear", "synonyms": synonyms}, format="json"
    )
    if same:
        assert (patched.status_code, created.status_code) == (400, 400)
        assert "synonyms" in patched.json() and "synonyms" in created.json()
    else:
        assert (patched.status_code, created.status_code) == (200, 201)
        assert patched.json()["synonyms"] == created.json()["synonyms"] == synonyms


def test_search_never_matches_across_name_and_synonyms(anon_client, fruit_factory):
    fruit_factory(name="A", synonyms=["b"])
    assert anon_client.get(FRUITS, {"search": "a\nb"}).json()["count"] == 0
    assert anon_client.get(FRUITS, {"search": "a\x1fb"}).json()["count"] == 0
    assert anon_client.get(FRUITS, {"search": "b"}).json()["count"] == 1


def test_synonyms_are_listed_in_their_stored_order_not_by_name_or_id(anon_client, fruit_factory):
    fruit = fruit_factory(name="Apfel", synonyms=["Anna", "Berta", "Clara", "Dora"])
    # Positions reversed behind the rows' backs: ids and names now run against the order.
    for name in FruitName.objects.filter(fruit=fruit):
        FruitName.objects.filter(pk=name.pk).update(position=10 - name.position)
    expected = ["Dora", "Clara", "Berta", "Anna"]
    assert anon_client.get(f"{FRUITS}/{fruit.pk}").json()["synonyms"] == expected
    assert anon_client.get(FRUITS).json()["results"][0]["synonyms"] == expected
    assert "Dora, Clara, Berta, Anna" in anon_client.get("/").content.decode()
    assert [
        name["name"] for name in Fruit.objects.with_list_data().get(pk=fruit.pk).name_list
    ] == expected
    assert [name["name"] for name in Fruit.objects.get(pk=fruit.pk).name_list] == expected


def test_a_fruit_without_synonyms_lists_an_empty_list(anon_client, fruit_factory):
    fruit_factory(name="Apfel")
    assert anon_client.get(FRUITS).json()["results"][0]["synonyms"] == []


def test_a_fruit_read_for_a_list_shows_its_new_synonyms_after_they_are_set(fruit_factory):
    from catalog.services import fruit_set_names

    fruit = fruit_factory(name="Apfel", synonyms=["Eins"])
    listed = Fruit.objects.with_list_data().get(pk=fruit.pk)
    assert [name["name"] for name in listed.name_list] == ["Eins"]
    fruit_set_names(
        fruit=listed, names=clean_names([{"name": "Zwei"}, {"name": "Drei"}], fruit_name="Apfel")
    )
    assert [name["name"] for name in listed.name_list] == ["Zwei", "Drei"]


def test_a_deleted_fruits_automatic_number_is_never_issued_again(curator_client):
    first = create(curator_client, name="A", type="pear").json()
    highest = create(curator_client, name="B", type="pear").json()
    assert (first["catalog_number"], highest["catalog_number"]) == (1, 2)

    # The fruit holding the highest number goes, then every fruit: numbers keep counting up.
    assert curator_client.delete(f"/api/v1/fruits/{highest['id']}").status_code == 204
    assert create(curator_client, name="C", type="pear").json()["catalog_number"] == 3
    Fruit.objects.all().delete()
    assert create(curator_client, name="D", type="pear").json()["catalog_number"] == 4


def test_an_explicit_number_raises_the_next_only_while_a_fruit_holds_it(curator_client):
    assert create(curator_client, name="A", type="pear").json()["catalog_number"] == 1
    typo = create(curator_client, name="Typo", type="pear", catalog_number=2147483647).json()
    held = create(curator_client, name="Held", type="pear", catalog_number=50).json()
    assert curator_client.delete(f"/api/v1/fruits/{typo['id']}").status_code == 204

    assert create(curator_client, name="B", type="pear").json()["catalog_number"] == 51
    assert curator_client.delete(f"/api/v1/fruits/{held['id']}").status_code == 204
    # 51 was assigned automatically: it stays used; 50 was explicit and is free to give again.
    assert create(curator_client, name="C", type="pear").json()["catalog_number"] == 52
    assert create(curator_client, name="D", type="pear", catalog_number=50).status_code == 201


# Typed names


BOSKOOP_NAMES = [
    {"name": "Boskoop", "kind": "synonym", "language": "nl", "note": ""},
    {"name": "Belle de Boskoop", "kind": "translation", "language": "fr", "note": ""},
    {"name": "Renette von Montfort", "kind": "historic", "language": "de", "note": "before 1860"},
]


def test_names_are_typed_records_in_their_order_and_synonyms_are_their_texts(
    curator_client, anon_client
):
    response = create(curator_client, name="Schöner aus Boskoop", type="apple", names=BOSKOOP_NAMES)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["names"] == BOSKOOP_NAMES
    assert body["synonyms"] == ["Boskoop", "Belle de Boskoop", "Renette von Montfort"]
    listed = anon_client.get(FRUITS).json()["results"][0]
    assert listed["names"] == BOSKOOP_NAMES and listed["synonyms"] == body["synonyms"]


def test_a_name_gets_its_defaults(curator_client):
    body = create(curator_client, name="Apfel", type="apple", names=[{"name": "Eins"}]).json()
    assert body["names"] == [{"name": "Eins", "kind": "synonym", "language": "", "note": ""}]


def test_writing_synonyms_keeps_what_is_known_of_unchanged_names(curator_client):
    fruit = create(
        curator_client, name="Schöner aus Boskoop", type="apple", names=BOSKOOP_NAMES
    ).json()
    response = curator_client.patch(
        f"{FRUITS}/{fruit['id']}", {"synonyms": ["Belle de Boskoop", "Boskoper"]}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["names"] == [
        {"name": "Belle de Boskoop", "kind": "translation", "language": "fr", "note": ""},
        {"name": "Boskoper", "kind": "synonym", "language": "", "note": ""},
    ]


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ([{"name": "X", "kind": "nickname"}], "is not a valid choice"),
        ([{"name": "X", "language": "deu"}], ""),
        ([{"name": "X", "language": "DE"}], ""),
        ([{"name": "X", "language": "xx"}], "ISO 639-1"),
        ([{"name": "X", "note": "n" * 501}], "500"),
        ([{"name": "Boskoop"}, {"name": "BOSKOOP"}], "Duplicate name"),
        ([{"name": "apfel"}], "own name"),
        ([{"name": ""}], ""),
    ],
)
def test_bad_names_are_a_400_and_nothing_is_stored(curator_client, names, message):
    response = create(curator_client, name="Apfel", type="apple", names=names)
    assert response.status_code == 400
    assert "names" in response.json() and message in str(response.json()["names"])
    assert not Fruit.objects.exists() and not FruitName.objects.exists()


def test_names_and_synonyms_together_are_a_400(curator_client):
    response = create(
        curator_client, name="Apfel", type="apple", names=[{"name": "A"}], synonyms=["B"]
    )
    assert response.status_code == 400 and "names" in response.json()
    assert not Fruit.objects.exists()


# The forgiving search


def names_found(client, search, **params) -> list[str]:
    body = client.get(FRUITS, {"search": search, **params}).json()
    return [fruit["name"] for fruit in body["results"]]


def test_search_folds_umlauts_both_ways_apostrophes_and_punctuation(anon_client, fruit_factory):
    fruit_factory(name="Schöner aus Boskoop")
    fruit_factory(name="Cox's Orange Pippin")
    fruit_factory(name="Weißer Klarapfel")
    assert names_found(anon_client, "schoener aus boskoop") == ["Schöner aus Boskoop"]
    assert names_found(anon_client, "SCHONER") == ["Schöner aus Boskoop"]
    assert names_found(anon_client, "Coxs Orange") == ["Cox's Orange Pippin"]
    assert names_found(anon_client, "cox\u2019s orange-pippin") == ["Cox's Orange Pippin"]
    assert names_found(anon_client, "weisser klarapfel") == ["Weißer Klarapfel"]


def test_search_forgives_spelling_mistakes(anon_client, fruit_factory):
    fruit_factory(name="Gravensteiner")
    fruit_factory(name="Schöner aus Boskoop", synonyms=["Boskoop"])
    assert names_found(anon_client, "Gravenstiner") == ["Gravensteiner"]
    assert names_found(anon_client, "Boskop") == ["Schöner aus Boskoop"]


def test_results_come_by_relevance_unless_an_ordering_is_asked(anon_client, fruit_factory):
    fruit_factory(name="Roter Boskoop", catalog_number=1)  # contains the term
    fruit_factory(name="Boskoop Glory", catalog_number=2)  # starts with it
    fruit_factory(
        name="Schöner aus Boskoop", catalog_number=3, synonyms=["Boskoop"]
    )  # another name
    fruit_factory(name="Boskoop", catalog_number=4)  # its own name
    fruit_factory(name="Boskop Nova", catalog_number=5)  # a spelling away
    assert names_found(anon_client, "boskoop") == [
        "Boskoop",
        "Schöner aus Boskoop",
        "Boskoop Glory",
        "Roter Boskoop",
        "Boskop Nova",
    ]
    by_number = names_found(anon_client, "boskoop", ordering="catalog_number")
    assert by_number == [
        "Roter Boskoop",
        "Boskoop Glory",
        "Schöner aus Boskoop",
        "Boskoop",
        "Boskop Nova",
    ]


def test_matched_name_says_which_other_name_matched(anon_client, fruit_factory):
    fruit_factory(name="Schöner aus Boskoop", synonyms=["Belle de Boskoop"])
    (found,) = anon_client.get(FRUITS, {"search": "belle de"}).json()["results"]
    assert found["matched_name"] == "Belle de Boskoop"
    (found,) = anon_client.get(FRUITS, {"search": "schoner"}).json()["results"]
    assert found["matched_name"] is None
    assert anon_client.get(FRUITS).json()["results"][0]["matched_name"] is None


def test_a_failed_search_suggests_the_closest_names_and_nonsense_suggests_nothing(
    anon_client, fruit_factory
):
    fruit = fruit_factory(name="Gravensteiner")
    body = anon_client.get(FRUITS, {"search": "Gravnstainr"}).json()
    assert body["count"] == 0
    assert body["suggestions"] == [{"name": "Gravensteiner", "fruit_id": fruit.pk}]
    nonsense = anon_client.get(FRUITS, {"search": "xqzvw"}).json()
    assert (nonsense["count"], nonsense["suggestions"]) == (0, [])
    assert anon_client.get(FRUITS, {"search": "Gravensteiner"}).json()["suggestions"] == []
    assert anon_client.get(FRUITS).json()["suggestions"] == []


def test_numbers_are_matched_exactly_not_fuzzily(anon_client, fruit_factory):
    fruit_factory(name="A", catalog_number=4711)
    fruit_factory(name="B", catalog_number=4712)
    assert names_found(anon_client, "4711") == ["A"]


def test_umlauts_are_found_whichever_way_either_side_writes_them(anon_client, fruit_factory):
    fruit_factory(name="Koestliche aus Kirchwerder")
    fruit_factory(name="Müller Renette")
    assert names_found(anon_client, "Köst") == ["Koestliche aus Kirchwerder"]
    assert names_found(anon_client, "Mueller") == ["Müller Renette"]
    assert names_found(anon_client, "mu\u0308ller renette") == ["Müller Renette"]


def test_matches_of_one_rank_keep_the_catalog_order(anon_client, fruit_factory):
    fruit_factory(name="Kleine Renettenbaumschule", catalog_number=1)
    fruit_factory(name="Zabergäu Renette", catalog_number=2)
    assert names_found(anon_client, "enette") == ["Kleine Renettenbaumschule", "Zabergäu Renette"]


def test_a_number_match_names_no_other_name(anon_client, fruit_factory):
    fruit_factory(name="Apostelapfel", catalog_number=1234, synonyms=["12 Apostles"])
    (found,) = anon_client.get(FRUITS, {"search": "1234"}).json()["results"]
    assert found["matched_name"] is None


def test_a_search_with_more_matches_than_it_ranks_lists_the_best_in_the_same_order(
    anon_client, fruit_factory, monkeypatch
):
    # Relevance order over the first matches of each tier in catalog order, by index: the best
    # RANKED_MAX are exactly those a ranking of every match would put first, whichever tier
    # holds them and wherever they are in the catalog, and a filter narrows every tier.
    monkeypatch.setattr(search, "RANKED_MAX", 4)
    for number in range(1, 6):
        fruit_factory(name=f"Roter Boskoop {number}", catalog_number=number)  # contains
    fruit_factory(name="Boskoop Glory", catalog_number=20, type="pear")  # starts with it
    fruit_factory(name="Belle", catalog_number=30, synonyms=["Boskoop"])  # another name
    fruit_factory(name="Boskoop", catalog_number=40)  # its own name
    fruit_factory(name="Boskoop Nova", catalog_number=50)  # starts with it
    fruit_factory(name="Boskoop Rouge", catalog_number=60)  # starts with it
    best = ["Boskoop", "Belle", "Boskoop Glory", "Boskoop Nova"]
    body = anon_client.get(FRUITS, {"search": "boskoop"}).json()
    assert [fruit["name"] for fruit in body["results"]] == best
    assert body["count"] == 4
    assert names_found(anon_client, "boskoop", page_size=2, page=2) == best[2:]
    assert names_found(anon_client, "boskoop", type="pear") == ["Boskoop Glory"]
    # An explicit ordering lists every match.
    assert anon_client.get(FRUITS, {"search": "boskoop", "ordering": "name"}).json()["count"] == 10


def test_the_other_filters_narrow_a_search_before_its_window(
    anon_client, fruit_factory, monkeypatch
):
    monkeypatch.setattr(search, "RANKED_MAX", 2)
    for number in range(1, 6):
        fruit_factory(name=f"Renette {number}", catalog_number=number)
    for number in range(6, 9):
        fruit_factory(name=f"Renette {number}", catalog_number=number, type="pear")
    assert names_found(anon_client, "renette", catalog_number=6) == ["Renette 6"]
    assert names_found(anon_client, "renette", type="pear") == ["Renette 6", "Renette 7"]


def test_a_renamed_fruit_is_ranked_by_its_new_names(curator_client, fruit_factory, monkeypatch):
    monkeypatch.setattr(search, "RANKED_MAX", 2)
    for number in range(1, 4):
        fruit_factory(name=f"Roter Boskoop {number}", catalog_number=number)
    fruit = fruit_factory(name="Boskoop", catalog_number=9)
    assert names_found(curator_client, "boskoop")[0] == "Boskoop"
    curator_client.patch(
        f"{FRUITS}/{fruit.pk}", {"name": "Kaiser", "names": [{"name": "Boskoop"}]}, format="json"
    )
    assert names_found(curator_client, "boskoop")[0] == "Kaiser"
    curator_client.patch(f"{FRUITS}/{fruit.pk}", {"names": []}, format="json")
    assert "Kaiser" not in names_found(curator_client, "boskoop")


def test_a_search_longer_than_a_name_is_a_400(anon_client):
    response = anon_client.get(FRUITS, {"search": "x" * 201})
    assert response.status_code == 400 and "search" in response.json()


def test_a_misspelled_word_is_corrected_from_the_dictionary_of_the_catalogs_words(
    anon_client, fruit_factory
):
    from catalog.search import corrections

    fruit = fruit_factory(name="Kaiser Wilhelm", synonyms=["Wilhelmsapfel"])
    fruit_factory(name="Gravensteiner")
    # Each word as typed, then its closest words of the catalog; a known word stays as typed.
    assert corrections("kaiser wilem") == [["kaiser"], ["wilem", "wilhelm"]]
    assert corrections("kaiser") is None  # no neighbour: the substring search said all
    assert corrections("xqzvw") is None  # nothing close
    body = anon_client.get(FRUITS, {"search": "Kaiser Wilem"}).json()
    assert [found["id"] for found in body["results"]] == [fruit.pk]


def test_the_dictionary_follows_renames_and_a_word_no_fruit_holds_finds_nothing(
    anon_client, curator_client, fruit_factory
):
    fruit = fruit_factory(name="Gravensteiner")
    response = anon_client.get(FRUITS, {"search": "Gravnstainr"})
    assert response.json()["suggestions"] == [{"name": "Gravensteiner", "fruit_id": fruit.pk}]
    renamed = curator_client.patch(
        f"{FRUITS}/{fruit.pk}", {"name": "Gravensteyner Rot"}, format="json"
    )
    assert renamed.status_code == 200
    body = anon_client.get(FRUITS, {"search": "Gravnstainr"}).json()
    # "gravensteiner" stays in the dictionary, held by no fruit: the live word is found.
    assert body["count"] == 0
    assert body["suggestions"] == [{"name": "Gravensteyner Rot", "fruit_id": fruit.pk}]
