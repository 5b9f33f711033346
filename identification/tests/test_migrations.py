"""The standard set's German wording: added where the English is still the standard one, and
removed again by the reverse, curators' own German kept both ways."""

import pytest

pytestmark = pytest.mark.slow

BEFORE = ("identification", "0005_characteristic_state_german_labels")
GERMAN = ("identification", "0006_standard_characteristics_german")


def labels(state, code: str) -> dict[int, str]:
    CharacteristicState = state.apps.get_model("identification", "CharacteristicState")
    return dict(
        CharacteristicState.objects.filter(characteristic__code=code).values_list(
            "value", "label_de"
        )
    )


def names(state) -> dict[str, str]:
    Characteristic = state.apps.get_model("identification", "Characteristic")
    return dict(Characteristic.objects.values_list("code", "name_de"))


@pytest.mark.django_db(transaction=True)
def test_the_german_wording_is_added_and_removed_again(migrator):
    old = migrator.apply_initial_migration(BEFORE)
    Characteristic = old.apps.get_model("identification", "Characteristic")
    CharacteristicState = old.apps.get_model("identification", "CharacteristicState")
    assert set(names(old).values()) == {""}
    # A curator's own wording: an English label changed, a German label and name written.
    size_states = CharacteristicState.objects.filter(characteristic__code="fruit_size")
    size_states.filter(value=1).update(label="tiny")
    size_states.filter(value=3).update(label_de="kleiner")
    Characteristic.objects.filter(code="stalk_length").update(name="Stalk: how long")
    Characteristic.objects.filter(code="eye").update(name_de="Auge: offen?")

    new = migrator.apply_tested_migration(GERMAN)
    german = names(new)
    assert german["fruit_size"] == "Frucht: Größe"
    assert german["ground_colour"] == "Frucht: Grundfarbe"
    assert german["over_colour_area"] == "Frucht: relative Fläche der Deckfarbe"
    assert german["stalk_length"] == ""  # its English is a curator's: no German guessed
    assert german["eye"] == "Auge: offen?"
    assert sum(1 for text in german.values() if text) == len(german) - 1
    assert labels(new, "fruit_size") == {
        1: "",
        3: "kleiner",
        5: "mittel",
        7: "groß",
        9: "sehr groß",
    }
    assert labels(new, "pear_shape")[8] == "birnenförmig"
    CharacteristicState = new.apps.get_model("identification", "CharacteristicState")
    unlabelled = CharacteristicState.objects.filter(
        characteristic__code__in=german, label_de=""
    ).values_list("characteristic__code", "value")
    assert list(unlabelled) == [("fruit_size", 1)]

    back = migrator.apply_tested_migration(BEFORE)
    assert names(back) == {code: "Auge: offen?" if code == "eye" else "" for code in german}
    assert labels(back, "fruit_size") == {1: "", 3: "kleiner", 5: "", 7: "", 9: ""}
    migrator.reset()
