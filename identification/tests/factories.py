"""Characteristics for the tests of every app, saved through the service (their own codes,
beside the standard ones the data migration installs)."""

from identification.models import Characteristic
from identification.services import characteristic_save


def make_characteristic(
    code,
    *,
    types=("apple",),
    scale="ordinal",
    reliability="medium",
    states=None,
    position=0,
    name=None,
    reference="",
):
    states = states or [
        {"value": value, "label": label}
        for value, label in [
            (1, "very small"),
            (3, "small"),
            (5, "medium"),
            (7, "large"),
            (9, "very large"),
        ]
    ]
    return characteristic_save(
        characteristic=Characteristic(
            code=code,
            name=name or code.replace("_", " ").capitalize(),
            scale=scale,
            reliability=reliability,
            position=position,
            reference=reference,
        ),
        fruit_types=list(types),
        states=[{"image_id": None, **state} for state in states],
    )
