"""Admin forms: a characteristic's types, and a fruit's values as one row per characteristic."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.html import format_html

from catalog.models import FruitType
from identification.models import Characteristic, FruitCharacteristic
from identification.services import fruit_set_characteristics
from identification.validators import clean_fruit_characteristics
from publications.models import Publication


class CharacteristicAdminForm(forms.ModelForm):
    types = forms.MultipleChoiceField(
        choices=FruitType.choices,
        label="Fruit types",
        widget=forms.CheckboxSelectMultiple,
        help_text="The fruit types it applies to.",
    )

    class Meta:
        model = Characteristic
        fields = ["code", "name", "scale", "reliability", "position", "reference"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["types"].initial = self.instance.type_list

    def clean_code(self):
        from identification.models import RESERVED_CODES

        code = self.cleaned_data["code"]
        if code in RESERVED_CODES:
            raise ValidationError(f"{code!r} is reserved (an identify parameter).")
        return code


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


class FruitCharacteristicForm(forms.ModelForm):
    """One characteristic of the fruit: its states to tick, the source and pages beside it."""

    values = forms.TypedMultipleChoiceField(
        coerce=int, required=False, widget=forms.CheckboxSelectMultiple, label="States"
    )

    class Meta:
        model = FruitCharacteristic
        fields = ["characteristic", "values", "source_publication", "pages", "note"]
        widgets = {
            "pages": forms.TextInput(attrs={"size": 6}),
            "note": forms.TextInput(attrs={"size": 18}),
        }

    def __init__(self, *args, question=None, names=None, publications=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["characteristic"].widget = NamedHiddenInput(names or {})
        self.fields["characteristic"].queryset = Characteristic.objects.all()
        if question is not None:
            self.fields["values"].choices = [
                (state.value, state.label) for state in question.states.all()
            ]
        source = self.fields["source_publication"]
        source.queryset = Publication.objects.filter(pk__in=[pk for pk, _ in publications])
        source.choices = [("", "—"), *publications]
        source.label = "Source"


class FruitCharacteristicFormSet(forms.BaseInlineFormSet):
    """Every characteristic of the fruit's type as a row, in question order, with what the fruit
    shows ticked. Saving replaces the fruit's values through the service, as the API does."""

    def __init__(self, *args, instance=None, **kwargs):
        self.questions = []
        publications = []
        initial = []
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
            for question in self.questions:
                row = stored.get(question.pk)
                initial.append(
                    {"characteristic": question.pk}
                    if row is None
                    else {
                        "characteristic": question.pk,
                        "values": [state.value for state in row.states.all()],
                        "source_publication": row.source_publication_id,
                        "pages": row.pages,
                        "note": row.note,
                    }
                )
        self.posted_questions = {}
        data = args[0] if args else kwargs.get("data")
        if data is not None:
            ids = [
                int(value)
                for key, value in data.items()
                if key.endswith("-characteristic") and str(value).isdigit()
            ]
            self.posted_questions = Characteristic.objects.prefetch_related("states").in_bulk(ids)
        self.names = {
            str(question.pk): question.name
            for question in [*self.questions, *self.posted_questions.values()]
        }
        self.publications = publications
        kwargs["queryset"] = FruitCharacteristic.objects.none()
        super().__init__(*args, instance=instance, initial=initial, **kwargs)
        self.extra = len(initial)
        self.max_num = len(initial)

    def get_form_kwargs(self, index):
        kwargs = super().get_form_kwargs(index)
        question = None
        if self.is_bound:
            # The row's own characteristic, as posted (the type may have changed meanwhile).
            posted = self.data.get(f"{self.add_prefix(index)}-characteristic", "")
            question = self.posted_questions.get(int(posted)) if posted.isdigit() else None
        elif index is not None and index < len(self.questions):
            question = self.questions[index]
        return {
            **kwargs,
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
            char = data.get("characteristic")
            if char is None or not data.get("values") or char.pk not in applying:
                continue
            entries.append(
                {
                    "code": char.code,
                    "values": data["values"],
                    "source_publication": data["source_publication"].pk
                    if data.get("source_publication")
                    else None,
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
        kept = Characteristic.objects.of_type(fruit.type).values_list("code", flat=True)
        entries = [entry for entry in self.entries if entry["code"] in set(kept)]
        records = clean_fruit_characteristics(entries, fruit_type=fruit.type)
        fruit_set_characteristics(fruit=fruit, records=records)
        return []
