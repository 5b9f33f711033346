"""How the public pages word a characteristic: its stored UPOV name as a label."""

from django import template

register = template.Library()


@register.filter
def characteristic_label(name: str) -> str:
    """A UPOV name, "Part: attribute", as a label that reads as words: "Stalk: length" is
    "Stalk length", "Time of: harvest" is "Time of harvest". "Fruit: " is left out: every question
    and every row is about the fruit ("Fruit: size" is "Size"). Other names are kept."""
    part, colon, attribute = name.partition(":")
    part, attribute = part.strip(), attribute.strip()
    if not (colon and part and attribute):
        return name
    if part.casefold() == "fruit":
        return attribute[:1].upper() + attribute[1:]
    return f"{part} {attribute}"
