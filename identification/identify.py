"""An identification: the answers read from a query, the candidates ranked, explained, and the
questions that would best separate them. Used by the API (`IdentifyView`) and the page."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from catalog.models import Fruit, FruitType
from identification import scoring
from identification.models import NOT_ANSWERS
from identification.values import Question, TypeValues, type_values

LIMIT_DEFAULT, LIMIT_MAX = 10, 50
NEXT_QUESTIONS = 3


@dataclass
class Candidate:
    fruit_id: int
    score: float
    matches: list[str] = field(default_factory=list)
    near: list[str] = field(default_factory=list)
    mismatches: list[dict] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    fruit: Fruit | None = None


@dataclass
class NextQuestion:
    question: Question
    counts: dict[int, int]  # state value -> how many listed candidates show it


@dataclass
class Identification:
    fruit_type: str
    answers: dict[str, tuple[int, ...]]
    count: int
    candidates: list[Candidate]
    next_questions: list[NextQuestion]
    questions: dict[str, Question]


def is_number(text: str) -> bool:
    """Plain ASCII digits, and few of them (`str.isdigit()` also takes "²")."""
    return text.isascii() and text.isdigit() and len(text) <= 9


def parse_query(query) -> tuple[str, int, dict[str, str]]:
    """`type`, `limit` and the raw answers of a query (a `QueryDict`); a `ValidationError` by
    parameter (a 400) for a missing or unknown type or a bad limit."""
    if len(query.getlist("type")) > 1:
        raise ValidationError({"type": [gettext("Give one fruit type.")]})
    fruit_type = query.get("type", "")
    if fruit_type not in FruitType.values:
        message = (
            gettext("Required.")
            if not fruit_type
            else gettext("%(type)s is not a fruit type.") % {"type": repr(fruit_type)}
        )
        raise ValidationError({"type": [message]})
    raw_limit = query.get("limit", "")
    limit = LIMIT_DEFAULT
    if raw_limit != "":
        if not is_number(raw_limit) or not 1 <= int(raw_limit) <= LIMIT_MAX:
            raise ValidationError(
                {"limit": [gettext("An integer from 1 to %(max)s.") % {"max": LIMIT_MAX}]}
            )
        limit = int(raw_limit)
    raw = {key: ",".join(query.getlist(key)) for key in query if key not in NOT_ANSWERS}
    return fruit_type, limit, raw


def parse_answers(raw: dict[str, str], values: TypeValues) -> dict[str, tuple[int, ...]]:
    """Each code's answer as state values; an empty one is no answer. A `ValidationError` names
    every parameter that is not a characteristic of the type or holds a value that is not a
    state."""
    answers, errors = {}, {}
    for code, text in raw.items():
        question = values.questions.get(code)
        if question is None:
            errors[code] = [
                gettext("No characteristic %(code)s applies to %(type)s.")
                % {"code": repr(code), "type": values.fruit_type}
            ]
            continue
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts:
            continue  # "can't tell"
        states = {state.value for state in question.states}
        chosen = []
        for part in parts:
            if not is_number(part) or int(part) not in states:
                known = ", ".join(str(value) for value in sorted(states))
                errors[code] = [
                    gettext("%(value)s is not one of its states (%(states)s).")
                    % {"value": repr(part), "states": known}
                ]
                break
            chosen.append(int(part))
        else:
            answers[code] = tuple(sorted(set(chosen)))
    if errors:
        raise ValidationError(errors)
    # In question order, whatever the query's order.
    return {code: answers[code] for code in values.questions if code in answers}


def identify(query) -> Identification:
    """Rank the fruits of the query's type by its answers. Queries: the type's version, its
    values when a write changed them (`type_values`), and the listed fruits."""
    fruit_type, limit, raw = parse_query(query)
    values = type_values(fruit_type)
    answers = parse_answers(raw, values)
    chars = values.characteristics
    if not answers:
        first = [
            NextQuestion(question, {state.value: 0 for state in question.states})
            for question in list(values.questions.values())[:NEXT_QUESTIONS]
        ]
        return Identification(fruit_type, {}, 0, [], first, values.questions)
    pool = {
        fruit_id: fruit_values
        for fruit_id, fruit_values in values.fruits.items()
        if any(code in fruit_values for code in answers)
    }
    ranked = scoring.rank(chars, answers, pool)
    listed = []
    for fruit_id, score in ranked[:limit]:
        candidate = Candidate(fruit_id, score)
        for code, answer in answers.items():
            shown = pool[fruit_id].get(code)
            verdict = scoring.classify(chars[code], answer, shown)
            if verdict == scoring.MATCH:
                candidate.matches.append(code)
            elif verdict == scoring.NEAR:
                candidate.near.append(code)
            elif verdict == scoring.MISMATCH:
                candidate.mismatches.append(
                    {"code": code, "answer": list(answer), "fruit": list(shown)}
                )
            else:
                candidate.unknown.append(code)
        listed.append(candidate)
    # What a candidate shows: its name (and other names, for the German one), number, type and
    # card thumbnail.
    fruits = (
        Fruit.objects.with_card_thumbnail()
        .with_names()
        .only("id", "catalog_number", "name", "type")
        .in_bulk([candidate.fruit_id for candidate in listed])
    )
    for candidate in listed:
        candidate.fruit = fruits.get(candidate.fruit_id)
    # A fruit deleted since the values were read is gone from the list (its version bump makes
    # the next request read them again).
    listed = [candidate for candidate in listed if candidate.fruit is not None]
    scores = {candidate.fruit_id: candidate.score for candidate in listed}
    suggested = scoring.next_questions(chars, answers, scores, pool, limit=NEXT_QUESTIONS)
    questions = []
    for code, _gain in suggested:
        question = values.questions[code]
        counts = {state.value: 0 for state in question.states}
        for candidate in listed:
            for value in pool[candidate.fruit_id].get(code, ()):
                counts[value] += 1
        questions.append(NextQuestion(question, counts))
    return Identification(fruit_type, answers, len(ranked), listed, questions, values.questions)
