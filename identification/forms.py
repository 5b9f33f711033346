"""Admin forms: a characteristic's types, and a fruit's values as one row per characteristic."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.html import format_html
from django.utils.translation import gettext_lazy

from catalog.models import FruitType
from core.db.ids import parse_id
from identification.models import Characteristic, FruitCharacteristic
from identification.services import fruit_set_characteristics
from identification.validators import clean_fruit_characteristics, validate_pages_have_source
from publications.models import Publication


class CharacteristicAdminForm(forms.ModelForm):
    types = forms.MultipleChoiceField(
        choices=FruitType.choices,
        label=gettext_lazy("Fruit types"),
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("The fruit types it applies to."),
    )

    class Meta:
        model = Characteristic
        fields = ["code", "name", "name_de", "scale", "reliability", "position", "reference"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["types"].initial = self.instance.type_list


class NamedHiddenInput(forms.HiddenInput):
    """The characteristic of a row: its name shown, its id sent."""

    def __init__(self, names: dict[str, str], *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.names = names

    def render(self, name, value, attrs=None, renderer=None):
        hidden = super().render(name, value, attrs, renderer)
        return format_html("{}<strong>{}</strong>", hidden, self.names.get(str(value), ""))

    @property
    def is_hidden(self):
        return False  # shown in its own column


# The source offers the publications that link the fruit: none at all is the usual surprise.
SOURCE_HELP = gettext_lazy(
    "One of the publications that describe this fruit. A publication is offered here once it "
    "links the fruit: add the fruit to its linked fruits on the publication's page. Pages need a "
    "source; a note does not."
)
NO_SOURCE_LABEL = gettext_lazy("— no publication linked —")
NO_SOURCE_HELP = gettext_lazy(
    "No publication links this fruit yet, so there is no source to choose: add the fruit to a "
    "publication's linked fruits (Publications, the publication's page), then choose it here. "
    "Pages need a source; a note does not."
)


class FruitCharacteristicForm(forms.ModelForm):
    """One characteristic of the fruit: its states to tick, the source and pages beside it.

    The characteristic and the source are plain fields checked against what the page offers
    (no query per row); the formset stores the rows through the service. Pages given or changed
    without a source are refused; a row stored so before keeps them until they are changed."""

    question = forms.IntegerField(min_value=1, label=gettext_lazy("Characteristic"))
    values = forms.TypedMultipleChoiceField(
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label=gettext_lazy("States"),
    )
    source = forms.TypedChoiceField(
        coerce=int, required=False, empty_value=None, label=gettext_lazy("Source")
    )

    class Meta:
        model = FruitCharacteristic
        fields = ["pages", "note"]
        widgets = {
            "pages": forms.TextInput(attrs={"size": 6}),
            "note": forms.TextInput(attrs={"size": 18}),
        }

    def __init__(self, *args, question=None, names=None, publications=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.question = question
        self.fields["question"].widget = NamedHiddenInput(names or {})
        if question is not None:
            self.fields["values"].choices = [
                (state.value, state.localized_label) for state in question.states.all()
            ]
        else:  # deleted since the page was shown: what was ticked there is left out
            self.fields["values"].disabled = True
        source = self.fields["source"]
        source.choices = [("", "—" if publications else NO_SOURCE_LABEL), *publications]
        source.help_text = SOURCE_HELP if publications else NO_SOURCE_HELP
        source.widget.attrs["title"] = source.help_text

    def clean(self):
        cleaned = super().clean()
        if {"pages", "source"} & set(self.changed_data) and "pages" not in self.errors:
            try:
                validate_pages_have_source(
                    pages=cleaned.get("pages", ""), source=cleaned.get("source")
                )
            except ValidationError as error:
                self.add_error("pages", error)
        return cleaned


class FruitCharacteristicFormSet(forms.BaseInlineFormSet):
    """Every characteristic of the fruit's type as a row, in question order, with what the fruit
    shows ticked. Saving replaces the fruit's values through the service, as the API does: every
    row is read (an untouched row keeps its values), and a row whose characteristic is gone or
    no longer applies to the fruit's type is left out."""

    def __init__(self, *args, instance=None, **kwargs):
        self.questions = []
        publications = []
        initial = []
        self.initial_by_id = {}
        if instance is not None and instance.pk:
            self.questions = list(
                Characteristic.objects.of_type(instance.type)
                .in_question_order()
                .prefetch_related("states")
            )
            stored = {
                row.characteristic_id: row
                for row in FruitCharacteristic.objects.filter(fruit=instance).prefetch_related(
                    "states"
                )
            }
            publications = list(
                Publication.objects.filter(links__fruit=instance)
                .order_by("title")
                .values_list("pk", "title")
            )
            self.initial_by_id = {
                char_id: {
                    "question": char_id,
                    "values": [state.value for state in row.states.all()],
                    "source": row.source_publication_id,
                    "pages": row.pages,
                    "note": row.note,
                }
                for char_id, row in stored.items()
            }
            initial = [
                self.initial_by_id.get(question.pk, {"question": question.pk})
                for question in self.questions
            ]
        self.posted_questions = {}
        data = args[0] if args else kwargs.get("data")
        if data is not None:
            ids = {
                parse_id(value)
                for key, value in data.items()
                if key.startswith("characteristics-") and key.endswith("-question")
            }
            ids.discard(None)
            self.posted_questions = Characteristic.objects.prefetch_related("states").in_bulk(ids)
        self.names = {
            str(question.pk): question.localized_name
            for question in [*self.questions, *self.posted_questions.values()]
        }
        self.publications = publications
        kwargs["queryset"] = FruitCharacteristic.objects.none()
        # Posted rows take their initial by characteristic (`get_form_kwargs`), not by place.
        super().__init__(
            *args, instance=instance, initial=None if data is not None else initial, **kwargs
        )
        self.extra = len(initial)
        self.max_num = len(initial)

    def get_form_kwargs(self, index):
        kwargs = super().get_form_kwargs(index)
        question = None
        if self.is_bound:
            # The row's own characteristic, as posted (the type may have changed meanwhile).
            posted = parse_id(self.data.get(f"{self.add_prefix(index)}-question", ""))
            question = self.posted_questions.get(posted)
            # What the row showed, by its characteristic (rows may have moved since).
            kwargs["initial"] = self.initial_by_id.get(posted, {"question": posted})
        elif index is not None and index < len(self.questions):
            question = self.questions[index]
        return {
            **kwargs,
            # Every row is cleaned, changed or not: the rows together replace the fruit's values.
            "empty_permitted": False,
            "question": question,
            "names": self.names,
            "publications": self.publications,
        }

    def clean(self):
        super().clean()
        if any(self.errors):
            return
        applying = {question.pk for question in self.questions}
        entries = []
        for form in self.forms:
            data = getattr(form, "cleaned_data", None) or {}
            question = form.question
            if question is None or question.pk not in applying or not data.get("values"):
                continue
            entries.append(
                {
                    "code": question.code,
                    "values": data["values"],
                    "source_publication": data.get("source"),
                    "pages": data.get("pages", ""),
                    "note": data.get("note", ""),
                }
            )
        self.entries = entries

    def save(self, commit=True):
        self.saved_forms = []
        self.new_objects, self.changed_objects, self.deleted_objects = [], [], []
        if not self.has_changed():
            return []
        fruit = self.instance
        # A type changed on the same page keeps only the rows that apply to the new type.
        kept = set(Characteristic.objects.of_type(fruit.type).values_list("code", flat=True))
        entries = [entry for entry in self.entries if entry["code"] in kept]
        records = clean_fruit_characteristics(entries, fruit_type=fruit.type)
        fruit_set_characteristics(fruit=fruit, records=records)
        return []
