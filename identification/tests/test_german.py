"""Characteristics in English and German: the standard set's German wording, curators writing
German names and labels (API, admin), and German answers and pages, through HTTP."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from core.testing.admin_pages import form_errors
from core.translated import in_language, localized
from identification.models import Characteristic, CharacteristicState
from identification.templatetags.characteristics import characteristic_label
from identification.tests.helpers import describe, ensure_standard_characteristics
from identification.tests.test_admin import characteristic_form_data, states_form

pytestmark = pytest.mark.django_db

CHARS = "/api/v1/characteristics"
GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


@pytest.fixture(autouse=True)
def standard_set():
    ensure_standard_characteristics()


def by_code(body) -> dict:
    return {item["code"]: item for item in body["results"]}


def states_of(item) -> dict:
    return {state["value"]: state for state in item["states"]}


def german_characteristic(client, **fields):
    body = {
        "code": "t_russet",
        "name": "Fruit: test russet",
        "name_de": "Frucht: Testberostung",
        "fruit_types": ["apple"],
        "scale": "ordinal",
        "states": [
            {"value": 1, "label": "little", "label_de": "wenig"},
            {"value": 3, "label": "much", "label_de": "viel"},
            {"value": 5, "label": "all over"},
        ],
    }
    response = client.post(CHARS, body | fields, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


# --- the standard set -------------------------------------------------------------------------


def test_the_standard_set_reads_in_german_with_accept_language_or_lang(anon_client):
    english = by_code(anon_client.get(CHARS, {"page_size": 100}).json())
    german = by_code(anon_client.get(CHARS, {"page_size": 100}, **GERMAN).json())
    by_parameter = by_code(anon_client.get(CHARS, {"page_size": 100, "lang": "de"}).json())
    assert german == by_parameter
    size_en, size_de = english["fruit_size"], german["fruit_size"]
    assert (size_en["name"], size_en["name_de"]) == ("Fruit: size", "Frucht: Größe")
    assert (size_de["name"], size_de["name_de"]) == ("Frucht: Größe", "Frucht: Größe")
    assert [s["label"] for s in size_de["states"]] == [
        "sehr klein",
        "klein",
        "mittel",
        "groß",
        "sehr groß",
    ]
    assert [s["label"] for s in size_en["states"]][1:4] == ["small", "medium", "large"]
    assert german["ground_colour"]["name"] == "Frucht: Grundfarbe"
    assert states_of(german["over_colour_hue"])[5]["label"] == "braunrot"
    # Field names, codes, values and the rest never change with the language.
    assert german.keys() == english.keys()
    for code, item in english.items():
        other = german[code]
        assert other.keys() == item.keys()
        assert {k: v for k, v in other.items() if k not in {"name", "states"}} == {
            k: v for k, v in item.items() if k not in {"name", "states"}
        }
        assert [(s["value"], s["label_de"]) for s in other["states"]] == [
            (s["value"], s["label_de"]) for s in item["states"]
        ]


def test_every_standard_characteristic_and_state_has_its_german_wording(anon_client):
    german = by_code(anon_client.get(CHARS, {"page_size": 100}, **GERMAN).json())
    assert len(german) >= 29
    for item in german.values():
        assert item["name_de"] and item["name"] == item["name_de"], item["code"]
        for state in item["states"]:
            assert state["label_de"] and state["label"] == state["label_de"], (item["code"], state)


def test_a_german_list_costs_the_queries_an_english_one_does(anon_client):
    counts = []
    for headers in ({}, GERMAN):
        with CaptureQueriesContext(connection) as queries:
            assert anon_client.get(CHARS, {"page_size": 100}, **headers).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 4


# --- curators write German --------------------------------------------------------------------


def test_a_curator_writes_german_names_and_labels_and_readers_get_them(curator_client, anon_client):
    body = german_characteristic(curator_client)
    assert body["name"] == "Fruit: test russet"
    assert body["name_de"] == "Frucht: Testberostung"
    assert [(s["label"], s["label_de"]) for s in body["states"]] == [
        ("little", "wenig"),
        ("much", "viel"),
        ("all over", ""),
    ]
    read = anon_client.get(f"{CHARS}/{body['id']}", **GERMAN).json()
    assert read["name"] == "Frucht: Testberostung"
    # A state without a German label is read in English.
    assert [s["label"] for s in read["states"]] == ["wenig", "viel", "all over"]


def test_a_write_without_german_keeps_it_and_an_empty_one_clears_it(curator_client, anon_client):
    body = german_characteristic(curator_client)
    url = f"{CHARS}/{body['id']}"
    # States written as a client of v1.3 writes them: the German labels stay.
    replaced = curator_client.put(
        url,
        {
            "code": "t_russet",
            "name": "Fruit: russet (test)",
            "fruit_types": ["apple"],
            "states": [{"value": 1, "label": "little"}, {"value": 3, "label": "a lot"}],
        },
        format="json",
    ).json()
    assert replaced["name_de"] == "Frucht: Testberostung"
    assert [(s["label"], s["label_de"]) for s in replaced["states"]] == [
        ("little", "wenig"),
        ("a lot", "viel"),
    ]
    cleared = curator_client.patch(
        url,
        {
            "name_de": "",
            "states": [{"value": 1, "label": "little", "label_de": ""}] * 1
            + [{"value": 3, "label": "a lot", "label_de": "sehr viel"}],
        },
        format="json",
    )
    assert cleared.status_code == 200, cleared.json()
    german = anon_client.get(url, **GERMAN).json()
    assert german["name"] == "Fruit: russet (test)"  # no German name: the English one
    assert [s["label"] for s in german["states"]] == ["little", "sehr viel"]


def test_name_is_written_in_english_whatever_the_request_language(curator_client):
    body = german_characteristic(curator_client)
    url = f"{CHARS}/{body['id']}"
    changed = curator_client.patch(url, {"name": "Fruit: russet, tested"}, format="json", **GERMAN)
    assert changed.status_code == 200, changed.json()
    stored = Characteristic.objects.get(pk=body["id"])
    assert (stored.name, stored.name_de) == ("Fruit: russet, tested", "Frucht: Testberostung")
    assert changed.json()["name"] == "Frucht: Testberostung"  # read back in German


def test_a_body_read_in_german_and_written_back_keeps_the_english_texts(curator_client):
    body = german_characteristic(curator_client)
    url = f"{CHARS}/{body['id']}"
    read = curator_client.get(url, **GERMAN).json()
    assert read["name"] == "Frucht: Testberostung"
    written = curator_client.put(url, read, format="json", **GERMAN)
    assert written.status_code == 200, written.json()
    stored = Characteristic.objects.get(pk=body["id"])
    assert (stored.name, stored.name_de) == ("Fruit: test russet", "Frucht: Testberostung")
    labels = list(stored.states.order_by("value").values_list("label", "label_de"))
    assert labels == [("little", "wenig"), ("much", "viel"), ("all over", "")]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name_de": "x" * 201}, "name_de"),
        ({"name_de": 7}, "name_de"),
        ({"name_de": None}, "name_de"),
        (
            {
                "states": [
                    {"value": 1, "label": "a", "label_de": "x" * 101},
                    {"value": 2, "label": "b"},
                ]
            },
            "states",
        ),
        (
            {"states": [{"value": 1, "label": "a", "label_de": 1}, {"value": 2, "label": "b"}]},
            "states",
        ),
    ],
)
def test_bad_german_texts_are_a_400_naming_the_field(curator_client, fields, field):
    body = {
        "code": "t_bad",
        "name": "Fruit: bad",
        "fruit_types": ["apple"],
        "states": [{"value": 1, "label": "a"}, {"value": 2, "label": "b"}],
    }
    response = curator_client.post(CHARS, body | fields, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not Characteristic.objects.filter(code="t_bad").exists()


def test_the_longest_german_texts_are_stored(curator_client):
    body = german_characteristic(
        curator_client,
        name_de="N" * 200,
        states=[{"value": 1, "label": "a", "label_de": "L" * 100}, {"value": 2, "label": "b"}],
    )
    assert len(body["name_de"]) == 200 and len(body["states"][0]["label_de"]) == 100


def test_the_admin_shows_and_stores_the_german_beside_the_english(admin_client):
    add = reverse("admin:identification_characteristic_add")
    page = admin_client.get(add).text
    assert 'name="name_de"' in page and 'name="states-0-label_de"' in page
    data = characteristic_form_data(name_de="Frucht: Testform") | states_form(
        [
            {"value": 1, "label": "globose", "label_de": "kugelförmig"},
            {"value": 2, "label": "conical"},
        ]
    )
    response = admin_client.post(add, data)
    assert response.status_code == 302, form_errors(response)
    char = Characteristic.objects.get(code="t_shape")
    assert char.name_de == "Frucht: Testform"
    assert [(s.label, s.label_de) for s in char.states.all()] == [
        ("globose", "kugelförmig"),
        ("conical", ""),
    ]
    change = admin_client.get(reverse("admin:identification_characteristic_change", args=[char.pk]))
    assert 'value="Frucht: Testform"' in change.text and 'value="kugelförmig"' in change.text


def test_history_records_a_german_label_change(curator_client):
    body = german_characteristic(curator_client)
    state = CharacteristicState.objects.get(characteristic_id=body["id"], value=3)
    response = curator_client.patch(
        f"{CHARS}/{body['id']}",
        {
            "name_de": "Frucht: Berostung (Test)",
            "states": [
                {"value": 1, "label": "little"},
                {"value": 3, "label": "much", "label_de": "stark"},
                {"value": 5, "label": "all over"},
            ],
        },
        format="json",
    )
    assert response.status_code == 200, response.json()
    rows = list(state.history.order_by("history_id"))
    assert [(row.history_type, row.label_de) for row in rows] == [("+", "viel"), ("~", "stark")]
    assert rows[-1].via == "api"
    names = Characteristic.history.filter(id=body["id"]).order_by("history_id")
    assert [row.name_de for row in names] == ["Frucht: Testberostung", "Frucht: Berostung (Test)"]


# --- what a fruit shows, identify, the pages --------------------------------------------------


@pytest.fixture
def described_apple(fruit_factory):
    fruit = fruit_factory(name="Gravensteiner")
    describe(fruit, {"fruit_size": [5, 7], "ground_colour": [3]})
    return fruit


def test_a_fruits_characteristics_read_in_german(anon_client, described_apple):
    url = f"/api/v1/fruits/{described_apple.pk}"
    english = anon_client.get(url).json()["characteristics"]
    german = anon_client.get(url, {"lang": "de"}).json()["characteristics"]
    assert [(c["code"], c["name"], c["labels"]) for c in german] == [
        ("fruit_size", "Frucht: Größe", ["mittel", "groß"]),
        ("ground_colour", "Frucht: Grundfarbe", ["grünlich gelb"]),
    ]
    assert [(c["code"], c["values"]) for c in german] == [(c["code"], c["values"]) for c in english]
    assert english[0]["labels"] == ["medium", "large"]


def test_identify_asks_in_german(anon_client, described_apple, fruit_factory):
    describe(fruit_factory(name="Boskoop"), {"fruit_size": [5], "ground_colour": [1]})
    answer = anon_client.get("/api/v1/identify", {"type": "apple", "fruit_size": "5"}, **GERMAN)
    assert answer.status_code == 200, answer.json()
    questions = {q["code"]: q for q in answer.json()["next_questions"]}
    assert questions["ground_colour"]["name"] == "Frucht: Grundfarbe"
    assert [s["label"] for s in questions["ground_colour"]["states"]][:2] == [
        "grün",
        "gelblich grün",
    ]
    english = anon_client.get("/api/v1/identify", {"type": "apple", "fruit_size": "5"}).json()
    assert {q["code"]: q["name"] for q in english["next_questions"]}["ground_colour"] == (
        "Fruit: ground colour"
    )


def test_the_identify_and_compare_pages_show_german_labels(client, described_apple, fruit_factory):
    page = client.get("/de/identify/", {"type": "apple", "fruit_size": "5"})
    assert page.status_code == 200
    assert "Grundfarbe" in page.text and "gelblich grün" in page.text
    assert "Ground colour" not in page.text
    other = fruit_factory(name="Boskoop")
    describe(other, {"fruit_size": [9]})
    compare = client.get("/de/compare/", {"fruits": f"{described_apple.pk},{other.pk}"})
    assert compare.status_code == 200
    assert "Größe" in compare.text and "sehr groß" in compare.text
    english = client.get("/compare/", {"fruits": f"{described_apple.pk},{other.pk}"})
    assert "very large" in english.text and "sehr groß" not in english.text


def test_the_fruit_page_shows_german_labels(client, described_apple):
    german = client.get(f"/de/fruits/{described_apple.pk}/")
    assert german.status_code == 200
    assert "grünlich gelb" in german.text and "greenish yellow" not in german.text
    english = client.get(f"/fruits/{described_apple.pk}/")
    assert "greenish yellow" in english.text and "grünlich gelb" not in english.text


def test_the_admin_in_german_offers_a_fruits_states_in_german(admin_client, described_apple):
    url = reverse("admin:catalog_fruit_change", args=[described_apple.pk])
    german = admin_client.get(url, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Frucht: Grundfarbe" in german and "grünlich gelb" in german
    english = admin_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Fruit: ground colour" in english and "grünlich gelb" not in english


# --- the pure parts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "name", "label"),
    [
        ("en", "Fruit: size", "Size"),
        ("en", "Stalk: length", "Stalk length"),
        ("de", "Frucht: Größe", "Größe"),
        ("de", "Stiel: Länge", "Stiel: Länge"),
        ("de", "Zeitpunkt der Blüte", "Zeitpunkt der Blüte"),
        ("de", "Fruit: size", "Size"),
    ],
)
def test_a_name_as_the_pages_word_it(language, name, label):
    with translation.override(language):
        assert characteristic_label(name) == label


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "medium"), ("de", "mittel"), ("de-at", "mittel"), ("fr", "medium"), (None, "medium")],
)
def test_a_text_in_the_active_language_falls_back_to_english(language, expected):
    state = CharacteristicState(label="medium", label_de="mittel")
    with translation.override(language):
        assert in_language("medium", de="mittel") == expected
        assert localized(state, "label") == state.localized_label == expected
    with translation.override("de"):
        assert localized(CharacteristicState(label="medium"), "label") == "medium"
