"""How the public pages word a characteristic: its stored UPOV name as a label."""

from django import template

from core.translated import active_language

register = template.Library()

# The part every question and row is about, in the names' languages: left out of labels.
THE_FRUIT = {"fruit", "frucht"}


@register.filter
def characteristic_label(name: str) -> str:
    """A UPOV name, "Part: attribute", as a label that reads as words: "Stalk: length" is
    "Stalk length", "Time of: harvest" is "Time of harvest". "Fruit: " is left out: every question
    and every row is about the fruit ("Fruit: size" is "Size"; "Frucht: Größe" is "Größe").
    German joins part and attribute in one word ("Stiellänge"), which no rule can write from
    "Stiel: Länge": German names other than the fruit's keep their colon. Other names are kept."""
    part, colon, attribute = name.partition(":")
    part, attribute = part.strip(), attribute.strip()
    if not (colon and part and attribute):
        return name
    if part.casefold() in THE_FRUIT:
        return attribute[:1].upper() + attribute[1:]
    if active_language() == "de":
        return f"{part}: {attribute}"
    return f"{part} {attribute}"
