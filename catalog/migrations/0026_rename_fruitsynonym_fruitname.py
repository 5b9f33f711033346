"""Rename FruitSynonym to FruitName, for what it holds: every other name of a fruit
(synonyms, translations, trade names... `NameKind`), which the API already calls `names`.

The table is renamed (`catalog_fruitsynonym` to `catalog_fruitname`), the related name becomes
`names`, and so do the constraints' prefixes. On PostgreSQL a constraint is renamed in place
(`ALTER TABLE ... RENAME CONSTRAINT`, which renames a unique constraint's index too): a change
of the catalog only, where dropping and adding them again would rebuild the unique index and
check every row of a large table under a lock. On SQLite the names live in the table's own
SQL, which no later change reads (SQLite alters a constraint by rebuilding the table from the
model state), so nothing is run there. Django's own generated names (the primary key, the
foreign key's constraint and index, the position's check, the id sequence) keep the old table
name, as after any `RenameModel`: Django finds them by introspection. No trigger or function
names the table (the deletion log watches fruits and images only).

The model permissions follow: their codenames (`add_fruitsynonym`...) become `add_fruitname`...,
so the Curators group and every user keep the rights they had on the names (Django renames the
content type, not its permissions). What users read stays: the verbose name "fruit synonym" of
the admin's pages, history and permission names.
"""

from django.db import migrations, models

# Old and new name of each constraint of the table.
CONSTRAINTS = [
    ("fruitsynonym_unique_name_key_per_fruit", "fruitname_unique_name_key_per_fruit"),
    ("fruitsynonym_name_not_empty", "fruitname_name_not_empty"),
    ("fruitsynonym_kind_valid", "fruitname_kind_valid"),
    ("fruitsynonym_language_iso_639_1", "fruitname_language_iso_639_1"),
]
ACTIONS = ["add", "change", "delete", "view"]
# ISO 639-1 codes as the constraint lists them (frozen: the live list may grow).
LANGUAGES = [
    "aa",
    "ab",
    "ae",
    "af",
    "ak",
    "am",
    "an",
    "ar",
    "as",
    "av",
    "ay",
    "az",
    "ba",
    "be",
    "bg",
    "bi",
    "bm",
    "bn",
    "bo",
    "br",
    "bs",
    "ca",
    "ce",
    "ch",
    "co",
    "cr",
    "cs",
    "cu",
    "cv",
    "cy",
    "da",
    "de",
    "dv",
    "dz",
    "ee",
    "el",
    "en",
    "eo",
    "es",
    "et",
    "eu",
    "fa",
    "ff",
    "fi",
    "fj",
    "fo",
    "fr",
    "fy",
    "ga",
    "gd",
    "gl",
    "gn",
    "gu",
    "gv",
    "ha",
    "he",
    "hi",
    "ho",
    "hr",
    "ht",
    "hu",
    "hy",
    "hz",
    "ia",
    "id",
    "ie",
    "ig",
    "ii",
    "ik",
    "io",
    "is",
    "it",
    "iu",
    "ja",
    "jv",
    "ka",
    "kg",
    "ki",
    "kj",
    "kk",
    "kl",
    "km",
    "kn",
    "ko",
    "kr",
    "ks",
    "ku",
    "kv",
    "kw",
    "ky",
    "la",
    "lb",
    "lg",
    "li",
    "ln",
    "lo",
    "lt",
    "lu",
    "lv",
    "mg",
    "mh",
    "mi",
    "mk",
    "ml",
    "mn",
    "mr",
    "ms",
    "mt",
    "my",
    "na",
    "nb",
    "nd",
    "ne",
    "ng",
    "nl",
    "nn",
    "no",
    "nr",
    "nv",
    "ny",
    "oc",
    "oj",
    "om",
    "or",
    "os",
    "pa",
    "pi",
    "pl",
    "ps",
    "pt",
    "qu",
    "rm",
    "rn",
    "ro",
    "ru",
    "rw",
    "sa",
    "sc",
    "sd",
    "se",
    "sg",
    "si",
    "sk",
    "sl",
    "sm",
    "sn",
    "so",
    "sq",
    "sr",
    "ss",
    "st",
    "su",
    "sv",
    "sw",
    "ta",
    "te",
    "tg",
    "th",
    "ti",
    "tk",
    "tl",
    "tn",
    "to",
    "tr",
    "ts",
    "tt",
    "tw",
    "ty",
    "ug",
    "uk",
    "ur",
    "uz",
    "ve",
    "vi",
    "vo",
    "wa",
    "wo",
    "xh",
    "yi",
    "yo",
    "za",
    "zh",
    "zu",
]


# The constraints as the model declares them now.
NEW_CONSTRAINTS = [
    models.UniqueConstraint(
        fields=("fruit", "name_key"), name="fruitname_unique_name_key_per_fruit"
    ),
    models.CheckConstraint(
        condition=models.Q(("name", ""), _negated=True), name="fruitname_name_not_empty"
    ),
    models.CheckConstraint(
        condition=models.Q(
            ("kind__in", ["synonym", "trade_name", "translation", "historic", "misapplied"])
        ),
        name="fruitname_kind_valid",
    ),
    models.CheckConstraint(
        condition=models.Q(("language", ""), ("language__in", LANGUAGES), _connector="OR"),
        name="fruitname_language_iso_639_1",
    ),
]


def rename_constraints(schema_editor, renames):
    if schema_editor.connection.vendor != "postgresql":
        return
    for old, new in renames:
        schema_editor.execute(
            f"ALTER TABLE catalog_fruitname RENAME CONSTRAINT {old} TO {new}"  # constants
        )


def constraints_forwards(apps, schema_editor):
    rename_constraints(schema_editor, CONSTRAINTS)


def constraints_backwards(apps, schema_editor):
    # Runs before the table gets its old name back.
    rename_constraints(schema_editor, [(new, old) for old, new in CONSTRAINTS])


def rename_permissions(apps, old, new):
    Permission = apps.get_model("auth", "Permission")
    for action in ACTIONS:
        Permission.objects.filter(
            content_type__app_label="catalog", codename=f"{action}_{old}"
        ).update(codename=f"{action}_{new}")


def permissions_forwards(apps, schema_editor):
    rename_permissions(apps, "fruitsynonym", "fruitname")


def permissions_backwards(apps, schema_editor):
    rename_permissions(apps, "fruitname", "fruitsynonym")


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0025_curators_newer_catalog_permissions"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RenameModel(old_name="FruitSynonym", new_name="FruitName"),
        migrations.AlterModelOptions(
            name="fruitname",
            options={"ordering": ["position", "pk"], "verbose_name": "fruit synonym"},
        ),
        migrations.AlterField(
            model_name="fruitname",
            name="fruit",
            field=models.ForeignKey(
                on_delete=models.CASCADE, related_name="names", to="catalog.fruit"
            ),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunPython(constraints_forwards, constraints_backwards),
            ],
            state_operations=[
                *(
                    migrations.RemoveConstraint(model_name="fruitname", name=old)
                    for old, _ in CONSTRAINTS
                ),
                *(
                    migrations.AddConstraint(model_name="fruitname", constraint=constraint)
                    for constraint in NEW_CONSTRAINTS
                ),
            ],
        ),
        migrations.RunPython(permissions_forwards, permissions_backwards),
    ]
