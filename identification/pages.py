"""Public pages of identification: "what is this fruit?" and a side-by-side comparison.

`/identify/` is a plain GET form whose query is the API's (`/identify/?type=apple&fruit_size=7`):
a permalink that works without JavaScript. Each page runs a fixed number of queries.
"""

import re

from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe

from catalog.models import Fruit, FruitType
from core.db.ids import parse_id
from core.site.pages import render_page
from identification.described import described_groups, with_described
from identification.identify import identify, parse_query
from identification.models import Characteristic, CharacteristicState, split_types
from identification.templatetags.characteristics import characteristic_label

COMPARE_MIN, COMPARE_MAX = 2, 6
COMPARE_FIRST = 3  # candidates the identify page offers to compare
# The identify page's heading for each type (each language has its own articles and cases).
IDENTIFY_TITLES = {
    FruitType.APPLE: gettext_lazy("Identify an apple"),
    FruitType.PEAR: gettext_lazy("Identify a pear"),
    FruitType.QUINCE: gettext_lazy("Identify a quince"),
    FruitType.CHERRY: gettext_lazy("Identify a cherry"),
    FruitType.PLUM: gettext_lazy("Identify a plum"),
    FruitType.APRICOT: gettext_lazy("Identify an apricot"),
    FruitType.PEACH: gettext_lazy("Identify a peach"),
    FruitType.GRAPE: gettext_lazy("Identify a grape"),
    FruitType.BERRY: gettext_lazy("Identify a berry"),
    FruitType.CITRUS: gettext_lazy("Identify a citrus fruit"),
    FruitType.NUT: gettext_lazy("Identify a nut"),
    FruitType.OTHER: gettext_lazy("Identify a fruit"),
}


def compare_url(ids) -> str:
    query = QueryDict(mutable=True)
    query["fruits"] = ",".join(str(pk) for pk in ids)
    return f"{reverse('compare-page')}?{query.urlencode(safe=',')}"


def types_with_questions() -> list[tuple[str, str]]:
    """The fruit types some characteristic applies to, in the catalog's order of types."""
    stored = set()
    for joined in (
        Characteristic.objects.order_by().values_list("fruit_types", flat=True).distinct()
    ):
        stored.update(split_types(joined))
    return [(value, label) for value, label in FruitType.choices if value in stored]


def state_images(fruit_type: str) -> dict[int, object]:
    """The images curators chose for the states of the type's characteristics, by state id
    (read per page: the kept values hold no picture)."""
    states = (
        CharacteristicState.objects.of_type(fruit_type).filter(image__isnull=False).with_images()
    )
    return {state.pk: state.image for state in states}


def is_measured(question) -> bool:
    """Whether answering takes measuring and dividing (a height/diameter ratio), which a
    gardener cannot judge by eye. No field of a characteristic says so; UPOV names every such
    characteristic a ratio, so the word "ratio" in its code or its name tells."""
    return "ratio" in re.split(r"[^a-z]+", f"{question.code} {question.name}".lower())


def question_view(question, answer: tuple[int, ...], images=None) -> dict:
    """A question as the form shows it: its states (with a picture where curators chose one),
    "can't tell", and an answer of several states as one choice of its own."""
    states = [
        {
            "value": str(state.value),
            "label": state.localized_label,
            "image": (images or {}).get(state.pk),
            "checked": answer == (state.value,),
        }
        for state in question.states
    ]
    several = None
    if len(answer) > 1:
        several = {
            "value": ",".join(str(value) for value in answer),
            "label": labels(question, answer),
        }
    return {
        "code": question.code,
        "name": characteristic_label(question.localized_name),
        "answer": labels(question, answer),
        "states": states,
        "several": several,
        "unanswered": not answer,
    }


@require_safe
def identify_page(request):
    """Ask about a fruit, show the varieties it most likely is, and the next best questions."""
    types = types_with_questions()
    context = {"types": types, "section": "identify", "fruit_type": ""}
    if "type" not in request.GET:
        return render_page(request, "identification/identify.html", context)
    try:
        fruit_type = parse_query(request.GET)[0]
        context["fruit_type"] = fruit_type
        context["type_label"] = FruitType(fruit_type).label
        context["identify_title"] = IDENTIFY_TITLES[fruit_type]
        result = identify(request.GET)
    except ValidationError as error:
        context["errors"] = [
            f"{name}: {message}"
            for name, messages in error.message_dict.items()
            for message in messages
        ]
        return render_page(request, "identification/identify.html", context, status=400)
    answers = result.answers
    questions = result.questions
    # What can be seen is asked before what must be measured, each in the order it had (the
    # sorts are stable): the next best questions by what they tell, the others by position.
    by_eye_first = sorted(questions, key=lambda code: is_measured(questions[code]))
    if answers:
        suggested = [item.question.code for item in result.next_questions]
        next_codes = sorted(suggested, key=lambda code: is_measured(questions[code]))
    else:
        # Without answers: the first in `position` order, those seen by eye first.
        next_codes = by_eye_first[: len(result.next_questions)]
    images = state_images(fruit_type)

    def names(codes) -> list[str]:
        return [characteristic_label(questions[code].localized_name) for code in codes]

    context |= {
        "answered": [question_view(questions[code], answers[code], images) for code in answers],
        "next_questions": [question_view(questions[code], (), images) for code in next_codes],
        "other_questions": [
            question_view(questions[code], (), images)
            for code in by_eye_first
            if code not in answers and code not in next_codes
        ],
        "candidates": [
            {
                "fruit": candidate.fruit,
                "percent": percent(candidate.score),
                "matches": names(candidate.matches),
                "near": names(candidate.near),
                "mismatches": [
                    {
                        "name": characteristic_label(questions[item["code"]].localized_name),
                        "answer": labels(questions[item["code"]], item["answer"]),
                        "fruit": labels(questions[item["code"]], item["fruit"]),
                    }
                    for item in candidate.mismatches
                ],
                "unknown": names(candidate.unknown),
            }
            for candidate in result.candidates
        ],
        "count": result.count,
        "compare_url": compare_url([c.fruit_id for c in result.candidates[:COMPARE_FIRST]])
        if len(result.candidates) >= COMPARE_MIN
        else "",
        "api_url": f"{reverse('identify')}?{request.GET.urlencode(safe=',')}",
    }
    return render_page(request, "identification/identify.html", context)


def labels(question, values) -> str:
    return _(" or ").join(question.label(value) for value in values)


def percent(score: float) -> str:
    if score >= 0.995:
        return "99+"
    if score < 0.01:
        return "<1"
    return str(round(score * 100))


@require_safe
def compare_page(request):
    """2-6 fruits side by side: picture, names, and every characteristic any of them shows,
    the rows where they differ marked; without `fruits`, how to choose them."""
    context = {"fruits": [], "rows": [], "section": "identify"}
    if "fruits" not in request.GET:
        return render_page(request, "identification/compare.html", context)
    raw = request.GET["fruits"]
    parts = [parse_id(part.strip()) for part in raw.split(",") if part.strip()]
    if None in parts:
        return compare_error(request, _("fruits: give fruit numbers separated by commas."))
    ids = list(dict.fromkeys(parts))
    if not COMPARE_MIN <= len(ids) <= COMPARE_MAX:
        return compare_error(
            request,
            _("fruits: compare %(min)d to %(max)d different fruits.")
            % {"min": COMPARE_MIN, "max": COMPARE_MAX},
        )
    found = with_described(
        Fruit.objects.with_list_data().with_card_alt_text().defer("search_text")
    ).in_bulk(ids)
    fruits = [found[pk] for pk in ids if pk in found]
    if len(fruits) < len(ids):
        missing = ", ".join(str(pk) for pk in ids if pk not in found)
        message = _("fruits: the catalog has no fruit %(missing)s.") % {"missing": missing}
        return compare_error(request, message, 404)
    names: dict[int, tuple] = {}
    shown: dict[int, dict[int, list[str]]] = {}
    for fruit in fruits:
        for group in described_groups(fruit):
            label = characteristic_label(group["name"])
            names[group["id"]] = (group["position"], group["id"], label)
            shown.setdefault(group["id"], {})[fruit.pk] = group["labels"]
    rows = []
    for char_id, (_position, _id, name) in sorted(names.items(), key=lambda item: item[1][:2]):
        cells = [shown[char_id].get(fruit.pk) for fruit in fruits]
        described = {tuple(cell) for cell in cells if cell}
        rows.append({"name": name, "cells": cells, "differs": len(described) > 1})
    context |= {"fruits": fruits, "rows": rows}
    return render_page(request, "identification/compare.html", context)


def compare_error(request, message: str, status: int = 400):
    return render_page(
        request,
        "identification/compare.html",
        {"fruits": [], "rows": [], "errors": [message], "section": "identify"},
        status=status,
    )
