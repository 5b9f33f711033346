"""The standard characteristics of apples and pears, after UPOV and ECPGR (docs/characteristics.md).

The data is frozen here, as it was installed: later changes are new migrations or curators'
edits. Removing this migration removes exactly these codes, with their states and the values
fruits hold for them.
"""

from django.db import migrations
from django.db.models import F

APPLE, PEAR, BOTH = ("apple",), ("pear",), ("apple", "pear")

# References name the document (and the ECPGR descriptor's number where it was checked), never a
# UPOV characteristic number. "cf.": adapted from the document (merged from several of its
# characteristics, or not in it in this form). docs/characteristics.md has the details.
TG14 = "UPOV TG/14/10"
TG15 = "UPOV TG/15/3"
ECPGR = "ECPGR Malus 2022"

# State lists several characteristics share (value, label).
SIZE = ((1, "very small"), (3, "small"), (5, "medium"), (7, "large"), (9, "very large"))
AREA = (
    (1, "absent or very small"),
    (3, "small"),
    (5, "medium"),
    (7, "large"),
    (9, "very large"),
)
LENGTH = ((1, "very short"), (3, "short"), (5, "medium"), (7, "long"), (9, "very long"))
THICKNESS = ((3, "thin"), (5, "medium"), (7, "thick"))
DEPTH = ((3, "shallow"), (5, "medium"), (7, "deep"))
RUSSET_AREA = ((1, "absent or small"), (2, "medium"), (3, "large"))
TIME = (
    (1, "very early"),
    (2, "very early to early"),
    (3, "early"),
    (4, "early to medium"),
    (5, "medium"),
    (6, "medium to late"),
    (7, "late"),
    (8, "late to very late"),
    (9, "very late"),
)

# code, name, fruit types, scale, reliability, position, reference, states
CHARACTERISTICS = [
    ("fruit_size", "Fruit: size", BOTH, "ordinal", "medium", 10, f"{TG14}; {TG15}", SIZE),
    (
        "shape",
        "Fruit: shape",
        APPLE,
        "nominal",
        "medium",
        20,
        f"{TG14}; {ECPGR} 2.5",
        (
            (1, "flat"),
            (2, "flat-globose"),
            (3, "globose"),
            (4, "globose-conical"),
            (5, "conical"),
            (6, "ellipsoid"),
            (7, "ovoid"),
            (8, "oblong"),
            (9, "oblong-conical"),
        ),
    ),
    (
        "pear_shape",
        "Fruit: shape",
        PEAR,
        "nominal",
        "medium",
        30,
        TG15,
        (
            (1, "globular"),
            (2, "ovoid"),
            (3, "ellipsoid"),
            (4, "obovoid"),
            (5, "turbinate"),
            (6, "conical"),
            (7, "bell-shaped"),
            (8, "pyriform"),
            (9, "calebasse"),
        ),
    ),
    (
        "ratio_height_diameter",
        "Fruit: ratio height/diameter",
        APPLE,
        "ordinal",
        "medium",
        40,
        TG14,
        SIZE,
    ),
    (
        "ratio_length_diameter",
        "Fruit: ratio length/diameter",
        PEAR,
        "ordinal",
        "medium",
        50,
        TG15,
        SIZE,
    ),
    (
        "ribbing",
        "Fruit: ribbing",
        APPLE,
        "ordinal",
        "high",
        60,
        f"{TG14}; {ECPGR} 2.7",
        ((1, "absent or weak"), (2, "medium"), (3, "strong")),
    ),
    (
        "ground_colour",
        "Fruit: ground colour",
        BOTH,
        "ordinal",
        "low",
        70,
        f"{TG14}; {TG15}",
        (
            (1, "green"),
            (2, "yellowish green"),
            (3, "greenish yellow"),
            (4, "yellow"),
            (5, "whitish yellow"),
        ),
    ),
    (
        "over_colour_area",
        "Fruit: relative area of over colour",
        BOTH,
        "ordinal",
        "low",
        80,
        f"{TG14}; {TG15}",
        AREA,
    ),
    (
        "over_colour_hue",
        "Fruit: hue of over colour",
        BOTH,
        "nominal",
        "low",
        90,
        f"{TG14}; {TG15}",
        (
            (1, "orange red"),
            (2, "pink red"),
            (3, "red"),
            (4, "purple red"),
            (5, "brown red"),
        ),
    ),
    (
        "over_colour_pattern",
        "Fruit: pattern of over colour",
        APPLE,
        "nominal",
        "medium",
        100,
        TG14,
        (
            (1, "solid flush"),
            (2, "striped"),
            (3, "flushed with weakly defined stripes"),
            (4, "flushed with strongly defined stripes"),
        ),
    ),
    (
        "russet_amount",
        "Fruit: area of russet (whole fruit)",
        BOTH,
        "ordinal",
        "medium",
        110,
        f"cf. {ECPGR}, {TG15}",
        AREA,
    ),
    (
        "russet_stalk_cavity",
        "Fruit: russet around stalk cavity",
        APPLE,
        "ordinal",
        "high",
        120,
        TG14,
        RUSSET_AREA,
    ),
    (
        "russet_cheeks",
        "Fruit: russet on cheeks",
        APPLE,
        "ordinal",
        "medium",
        130,
        TG14,
        RUSSET_AREA,
    ),
    (
        "russet_eye_basin",
        "Fruit: russet around eye basin",
        APPLE,
        "ordinal",
        "medium",
        140,
        TG14,
        RUSSET_AREA,
    ),
    (
        "bloom",
        "Fruit: bloom of skin",
        APPLE,
        "ordinal",
        "low",
        150,
        TG14,
        ((1, "absent or weak"), (2, "medium"), (3, "strong")),
    ),
    (
        "lenticels_number",
        "Fruit: number of lenticels",
        APPLE,
        "ordinal",
        "medium",
        160,
        TG14,
        ((3, "few"), (5, "medium"), (7, "many")),
    ),
    ("stalk_length", "Stalk: length", BOTH, "ordinal", "medium", 170, f"{TG14}; {TG15}", LENGTH),
    (
        "stalk_thickness",
        "Stalk: thickness",
        BOTH,
        "ordinal",
        "medium",
        180,
        f"{TG14}; {TG15}",
        THICKNESS,
    ),
    ("stalk_cavity_depth", "Stalk: cavity depth", APPLE, "ordinal", "high", 190, TG14, DEPTH),
    (
        "eye",
        "Eye: open or closed",
        APPLE,
        "nominal",
        "high",
        200,
        f"cf. {ECPGR}",
        ((1, "open"), (2, "half open"), (3, "closed")),
    ),
    (
        "eye_basin_depth",
        "Eye: basin depth",
        BOTH,
        "ordinal",
        "high",
        210,
        f"{TG14}; {TG15}",
        DEPTH,
    ),
    (
        "flesh_colour",
        "Flesh: colour",
        APPLE,
        "nominal",
        "medium",
        220,
        TG14,
        (
            (1, "white"),
            (2, "cream"),
            (3, "yellowish"),
            (4, "greenish"),
            (5, "pinkish"),
            (6, "reddish"),
        ),
    ),
    (
        "flesh_firmness",
        "Flesh: firmness",
        APPLE,
        "ordinal",
        "low",
        230,
        TG14,
        ((1, "very soft"), (3, "soft"), (5, "medium"), (7, "firm"), (9, "very firm")),
    ),
    (
        "flesh_texture",
        "Flesh: texture",
        PEAR,
        "ordinal",
        "medium",
        240,
        f"cf. {TG15}",
        ((1, "fine"), (2, "medium"), (3, "coarse")),
    ),
    (
        "juiciness",
        "Flesh: juiciness",
        BOTH,
        "ordinal",
        "low",
        250,
        f"cf. {ECPGR}, {TG15}",
        ((3, "low"), (5, "medium"), (7, "high")),
    ),
    (
        "locules_aperture",
        "Core: aperture of locules",
        APPLE,
        "ordinal",
        "medium",
        260,
        TG14,
        ((1, "closed or slightly open"), (2, "moderately open"), (3, "fully open")),
    ),
    (
        "harvest_time",
        "Time of: harvest",
        BOTH,
        "ordinal",
        "low",
        270,
        f"{TG14}; {ECPGR} 2.1; cf. {TG15}",
        TIME,
    ),
    (
        "flowering_time",
        "Time of: flowering",
        BOTH,
        "ordinal",
        "low",
        280,
        f"{TG14}; {ECPGR} 1.1; {TG15}",
        TIME,
    ),
    (
        "use",
        "Fruit: use",
        BOTH,
        "nominal",
        "low",
        290,
        "Pomological use class (not a UPOV characteristic)",
        ((1, "dessert"), (2, "cooking"), (3, "cider or perry"), (4, "multi-purpose")),
    ),
]

CODES = [entry[0] for entry in CHARACTERISTICS]
TYPES = sorted({fruit_type for entry in CHARACTERISTICS for fruit_type in entry[2]})


def join_types(types) -> str:
    # As identification.models.join_types stores them: `,apple,pear,` (sorted).
    return "," + ",".join(sorted(set(types))) + ","


def bump_versions(apps) -> None:
    """What identification reads of these types changed: processes holding it reload."""
    ValuesVersion = apps.get_model("identification", "ValuesVersion")
    for fruit_type in TYPES:
        ValuesVersion.objects.get_or_create(fruit_type=fruit_type)
        ValuesVersion.objects.filter(fruit_type=fruit_type).update(version=F("version") + 1)


def install(apps, schema_editor):
    Characteristic = apps.get_model("identification", "Characteristic")
    CharacteristicState = apps.get_model("identification", "CharacteristicState")
    taken = sorted(Characteristic.objects.filter(code__in=CODES).values_list("code", flat=True))
    if taken:
        # Installing over them would take a curator's characteristic for a standard one, and
        # reversing this migration would then delete it.
        raise RuntimeError(
            "Characteristics with the standard codes exist already: "
            f"{', '.join(taken)}. Rename or delete them, then migrate again."
        )
    for code, name, types, scale, reliability, position, reference, states in CHARACTERISTICS:
        characteristic = Characteristic.objects.create(
            code=code,
            name=name,
            fruit_types=join_types(types),
            scale=scale,
            reliability=reliability,
            position=position,
            reference=reference,
        )
        CharacteristicState.objects.bulk_create(
            CharacteristicState(characteristic=characteristic, value=value, label=label)
            for value, label in states
        )
    bump_versions(apps)


def remove(apps, schema_editor):
    Characteristic = apps.get_model("identification", "Characteristic")
    CharacteristicState = apps.get_model("identification", "CharacteristicState")
    FruitCharacteristic = apps.get_model("identification", "FruitCharacteristic")
    # The fruits' values first: their states are PROTECTed while a value uses them.
    FruitCharacteristic.objects.filter(characteristic__code__in=CODES).delete()
    CharacteristicState.objects.filter(characteristic__code__in=CODES).delete()
    Characteristic.objects.filter(code__in=CODES).delete()
    bump_versions(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("identification", "0001_characteristics"),
    ]

    operations = [
        migrations.RunPython(install, remove),
    ]
