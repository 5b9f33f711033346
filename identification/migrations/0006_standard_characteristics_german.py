"""The standard characteristics' German names and state labels, in the wording of UPOV's German
test guidelines (TG/14 apple, TG/15 pear) where it is known (docs/characteristics.md says which
were checked against the guidelines' text).

Frozen here, as installed. A name or label is filled only where it still has the English text
`0002_standard_characteristics` installed and no German yet: a curator's own wording, English or
German, is left as it is. Reversing clears exactly the German texts this migration wrote.
"""

from django.db import migrations
from django.db.models import F

# code: (the English name installed, its German)
NAMES = {
    "fruit_size": ("Fruit: size", "Frucht: Größe"),
    "shape": ("Fruit: shape", "Frucht: Form"),
    "pear_shape": ("Fruit: shape", "Frucht: Form"),
    "ratio_height_diameter": (
        "Fruit: ratio height/diameter",
        "Frucht: Verhältnis Höhe/Durchmesser",
    ),
    "ratio_length_diameter": (
        "Fruit: ratio length/diameter",
        "Frucht: Verhältnis Länge/Durchmesser",
    ),
    "ribbing": ("Fruit: ribbing", "Frucht: Rippen"),
    "ground_colour": ("Fruit: ground colour", "Frucht: Grundfarbe"),
    "over_colour_area": (
        "Fruit: relative area of over colour",
        "Frucht: relative Fläche der Deckfarbe",
    ),
    "over_colour_hue": ("Fruit: hue of over colour", "Frucht: Farbton der Deckfarbe"),
    "over_colour_pattern": ("Fruit: pattern of over colour", "Frucht: Muster der Deckfarbe"),
    "russet_amount": (
        "Fruit: area of russet (whole fruit)",
        "Frucht: Fläche der Berostung (ganze Frucht)",
    ),
    "russet_stalk_cavity": (
        "Fruit: russet around stalk cavity",
        "Frucht: Berostung in der Stielgrube",
    ),
    "russet_cheeks": ("Fruit: russet on cheeks", "Frucht: Berostung auf den Wangen"),
    "russet_eye_basin": ("Fruit: russet around eye basin", "Frucht: Berostung um die Kelchgrube"),
    "bloom": ("Fruit: bloom of skin", "Frucht: Bereifung der Schale"),
    "lenticels_number": ("Fruit: number of lenticels", "Frucht: Anzahl der Lentizellen"),
    "stalk_length": ("Stalk: length", "Stiel: Länge"),
    "stalk_thickness": ("Stalk: thickness", "Stiel: Dicke"),
    "stalk_cavity_depth": ("Stalk: cavity depth", "Stielgrube: Tiefe"),
    "eye": ("Eye: open or closed", "Kelch: offen oder geschlossen"),
    "eye_basin_depth": ("Eye: basin depth", "Kelchgrube: Tiefe"),
    "flesh_colour": ("Flesh: colour", "Fruchtfleisch: Farbe"),
    "flesh_firmness": ("Flesh: firmness", "Fruchtfleisch: Festigkeit"),
    "flesh_texture": ("Flesh: texture", "Fruchtfleisch: Textur"),
    "juiciness": ("Flesh: juiciness", "Fruchtfleisch: Saftigkeit"),
    "locules_aperture": ("Core: aperture of locules", "Kernhaus: Öffnung der Fächer"),
    "harvest_time": ("Time of: harvest", "Zeitpunkt der Pflückreife"),
    "flowering_time": ("Time of: flowering", "Zeitpunkt der Blüte"),
    "use": ("Fruit: use", "Frucht: Verwendung"),
}

# The English state labels installed, and their German: one word for one English label in every
# characteristic of the standard set ("medium" is "mittel" on each scale).
LABELS = {
    # sizes, areas, lengths, thicknesses, depths, amounts
    "very small": "sehr klein",
    "small": "klein",
    "medium": "mittel",
    "large": "groß",
    "very large": "sehr groß",
    "absent or very small": "fehlend oder sehr klein",
    "absent or small": "fehlend oder klein",
    "absent or weak": "fehlend oder gering",
    "strong": "stark",
    "very short": "sehr kurz",
    "short": "kurz",
    "long": "lang",
    "very long": "sehr lang",
    "thin": "dünn",
    "thick": "dick",
    "shallow": "flach",
    "deep": "tief",
    "few": "wenige",
    "many": "viele",
    "low": "gering",
    "high": "hoch",
    # apple shapes
    "flat": "flach",
    "flat-globose": "flachkugelig",
    "globose": "kugelförmig",
    "globose-conical": "kugelig-kegelförmig",
    "conical": "kegelförmig",
    "ellipsoid": "elliptisch",
    "ovoid": "eiförmig",
    "oblong": "länglich",
    "oblong-conical": "länglich-kegelförmig",
    # pear shapes
    "globular": "kugelförmig",
    "obovoid": "verkehrt eiförmig",
    "turbinate": "kreiselförmig",
    "bell-shaped": "glockenförmig",
    "pyriform": "birnenförmig",
    "calebasse": "kalebassenförmig",
    # colours
    "green": "grün",
    "yellowish green": "gelblich grün",
    "greenish yellow": "grünlich gelb",
    "yellow": "gelb",
    "whitish yellow": "weißlich gelb",
    "orange red": "orangerot",
    "pink red": "rosarot",
    "red": "rot",
    "purple red": "purpurrot",
    "brown red": "braunrot",
    "solid flush": "nur verwaschen",
    "striped": "gestreift",
    "flushed with weakly defined stripes": "verwaschen mit schwach ausgeprägten Streifen",
    "flushed with strongly defined stripes": "verwaschen mit stark ausgeprägten Streifen",
    "white": "weiß",
    "cream": "cremefarben",
    "yellowish": "gelblich",
    "greenish": "grünlich",
    "pinkish": "rosa",
    "reddish": "rötlich",
    # eye, flesh, core
    "open": "offen",
    "half open": "halb offen",
    "closed": "geschlossen",
    "very soft": "sehr weich",
    "soft": "weich",
    "firm": "fest",
    "very firm": "sehr fest",
    "fine": "fein",
    "coarse": "grob",
    "closed or slightly open": "geschlossen oder leicht geöffnet",
    "moderately open": "mäßig geöffnet",
    "fully open": "weit geöffnet",
    # times
    "very early": "sehr früh",
    "very early to early": "sehr früh bis früh",
    "early": "früh",
    "early to medium": "früh bis mittel",
    "medium to late": "mittel bis spät",
    "late": "spät",
    "late to very late": "spät bis sehr spät",
    "very late": "sehr spät",
    # use
    "dessert": "Tafelobst",
    "cooking": "Wirtschaftsobst (Kochen, Backen)",
    "cider or perry": "Most (Apfel- oder Birnenwein)",
    "multi-purpose": "vielseitig",
}

TYPES = ("apple", "pear")


def bump_versions(apps) -> None:
    """What identification reads of these types changed: processes holding it reload."""
    ValuesVersion = apps.get_model("identification", "ValuesVersion")
    for fruit_type in TYPES:
        ValuesVersion.objects.get_or_create(fruit_type=fruit_type)
        ValuesVersion.objects.filter(fruit_type=fruit_type).update(version=F("version") + 1)


def standard(apps):
    """The standard characteristics and their states, as stored now."""
    Characteristic = apps.get_model("identification", "Characteristic")
    CharacteristicState = apps.get_model("identification", "CharacteristicState")
    characteristics = list(Characteristic.objects.filter(code__in=NAMES).order_by("pk"))
    states = list(CharacteristicState.objects.filter(characteristic__code__in=NAMES).order_by("pk"))
    return Characteristic, CharacteristicState, characteristics, states


def add_german(apps, schema_editor):
    Characteristic, CharacteristicState, characteristics, states = standard(apps)
    named = []
    for characteristic in characteristics:
        english, german = NAMES[characteristic.code]
        if characteristic.name == english and not characteristic.name_de:
            characteristic.name_de = german
            named.append(characteristic)
    labelled = []
    for state in states:
        german = LABELS.get(state.label)
        if german and not state.label_de:
            state.label_de = german
            labelled.append(state)
    Characteristic.objects.bulk_update(named, ["name_de"])
    CharacteristicState.objects.bulk_update(labelled, ["label_de"])
    bump_versions(apps)


def remove_german(apps, schema_editor):
    Characteristic, CharacteristicState, characteristics, states = standard(apps)
    named = []
    for characteristic in characteristics:
        if characteristic.name_de == NAMES[characteristic.code][1]:
            characteristic.name_de = ""
            named.append(characteristic)
    labelled = []
    for state in states:
        if state.label_de and state.label_de == LABELS.get(state.label):
            state.label_de = ""
            labelled.append(state)
    Characteristic.objects.bulk_update(named, ["name_de"])
    CharacteristicState.objects.bulk_update(labelled, ["label_de"])
    bump_versions(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("identification", "0005_characteristic_state_german_labels"),
    ]

    operations = [
        migrations.RunPython(add_german, remove_german),
    ]
