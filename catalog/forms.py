"""Admin forms of the catalog: the same validators as the API serializers (one rule, one place)."""

from django import forms
from django.core.exceptions import ValidationError
from django.forms.formsets import DELETION_FIELD_NAME
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from blobs.forms import IMAGE_ACCEPT, ImageUploadForm, read_upload
from blobs.uploads import (
    apply_image_upload,
    store_image_unless_duplicate,
    validate_upload_size,
)
from catalog.models import NAME_FIELDS, Fruit, FruitImage, FruitName, FruitRelation, NameKind
from catalog.services import fruit_set_relations, next_catalog_number
from catalog.validators import clean_names, clean_relations, validate_name_text


class ImportForm(forms.Form):
    """The admin's import page: a spreadsheet, read up to the upload limit."""

    file = forms.FileField(
        label=gettext_lazy("Spreadsheet"),
        widget=forms.FileInput(attrs={"accept": ".csv,.xlsx,text/csv"}),
        help_text=gettext_lazy("CSV (UTF-8, comma or semicolon) or XLSX."),
    )

    def clean_file(self):
        """The uploaded file's bytes, within the upload limit."""
        data = read_upload(self.cleaned_data["file"])
        validate_upload_size(data)
        return data


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleImagesField(forms.FileField):
    """Several image files from one file input (Django's documented way)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": IMAGE_ACCEPT}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data if item]
        return [single(data, initial)] if data else []


class FruitAdminForm(forms.ModelForm):
    """A fruit's own fields, and several new images at once; an empty catalog number means "the
    next free one"."""

    more_images = MultipleImagesField(
        label=gettext_lazy("Add images"),
        required=False,
        help_text=gettext_lazy("Several files at once; each passes the checks of an upload."),
    )

    class Meta:
        model = Fruit
        fields = ["catalog_number", "name", "type"]

    def clean_more_images(self):
        """Each file checked as an upload (type, pixels, size, a thumbnail that can be made)."""
        self.new_images = []
        errors = []
        for upload in self.cleaned_data.get("more_images") or []:
            image = FruitImage()
            try:
                apply_image_upload(image, read_upload(upload))
            except ValidationError as error:
                errors.extend(f"{upload.name}: {message}" for message in error.messages)
                continue
            self.new_images.append((upload.name, image))
        if errors:
            raise ValidationError(errors)
        return self.cleaned_data.get("more_images")

    def save_more_images(self) -> list[str]:
        """Store the checked images on the saved fruit; the names of files it already had."""
        skipped = []
        for name, image in getattr(self, "new_images", []):
            image.fruit = self.instance
            if store_image_unless_duplicate(image) is not None:
                skipped.append(name)
        return skipped

    def clean_name(self):
        """The fruit's name, checked as the API and the import check it."""
        name = self.cleaned_data["name"]
        validate_name_text(name)
        return name

    def clean_catalog_number(self):
        """Refuse clearing a number a fruit already has, as the API does; check one is left."""
        number = self.cleaned_data.get("catalog_number")
        if number is not None:
            return number
        if self.instance.pk and self.instance.catalog_number is not None:
            raise ValidationError(_("A catalog number cannot be set back to null."))
        try:
            next_catalog_number()  # the admin's save assigns it; here only its refusal matters
        except ValidationError as error:
            raise ValidationError(error.message_dict["catalog_number"]) from None
        return number


def is_deleted(formset, form) -> bool:
    """Whether the form's row is ticked for deletion (its formset validated)."""
    return formset.can_delete and bool(form.cleaned_data.get(DELETION_FIELD_NAME))


def kept_in_position_order(formset, *, filled: str, record) -> list[dict]:
    """The records (`record(cleaned_data)`) of an inline formset's rows that are kept (not
    deleted, `filled` given), by their `position`; rows without one last, as on the page."""
    kept = []
    for index, form in enumerate(formset.forms):
        data = getattr(form, "cleaned_data", None)
        if not data or is_deleted(formset, form) or not data.get(filled):
            continue
        position = data.get("position")
        kept.append((position is None, position or 0, index, record(data)))
    kept.sort(key=lambda entry: entry[:3])
    return [entry[3] for entry in kept]


class NameFormSet(forms.BaseInlineFormSet):
    """The other names of one fruit, validated as a whole like the API's `names`.

    They are written with the fruit, by the service (`fruit_save(names=changed_name_list())` in
    the admin's `save_related`), which replaces the whole list: renaming two names into each
    other, or deleting "Boskoop" while adding "boskoop", never trips the case-insensitive
    unique constraint half-way through, and the search column is computed once.
    """

    def clean(self):
        """Order the kept names by position and check the whole list with `clean_names`."""
        super().clean()
        if any(self.errors):
            return
        kept = kept_in_position_order(
            self,
            filled="name",
            record=lambda data: {field: data.get(field) or "" for field in NAME_FIELDS},
        )
        try:
            self.name_list = clean_names(kept, fruit_name=self.instance.name or "")
        except ValidationError as error:
            raise ValidationError(error.messages) from None
        # The names as stored, for the history: read from the database, since validation has
        # already written the new values onto the instances of the initial forms.
        self.names_before = list(FruitName.objects.filter(fruit_id=self.instance.pk))

    def changed_name_list(self) -> list[dict] | None:
        """The validated names to store, or None when no row changed (the names stay)."""
        return self.name_list if self.has_changed() else None

    def save(self, commit=True):
        """Record what the fruit's write changed in its names, for the admin's history.

        The admin builds its message from `new_objects`, `changed_objects` and
        `deleted_objects`, which `BaseModelFormSet.save` would set.
        """
        self.saved_forms = []
        self.new_objects, self.changed_objects, self.deleted_objects = [], [], []
        if not self.has_changed():
            return []
        before = {name.name: name for name in self.names_before}
        after = {name.name: name for name in FruitName.objects.filter(fruit=self.instance)}
        self.new_objects = [name for text, name in after.items() if text not in before]
        self.deleted_objects = [name for text, name in before.items() if text not in after]
        self.changed_objects = [
            (after[text], changed)
            for text, old in before.items()
            if text in after
            and (
                changed := [
                    field
                    for field in ("position", "kind", "language", "note")
                    if getattr(after[text], field) != getattr(old, field)
                ]
            )
        ]
        return list(after.values())


class NameForm(forms.ModelForm):
    """One name row; an empty position puts the name at the end."""

    kind = forms.ChoiceField(choices=NameKind.choices, initial=NameKind.SYNONYM, required=False)
    position = forms.IntegerField(
        required=False,
        min_value=0,
        widget=forms.NumberInput(attrs={"class": "vIntegerField", "style": "width: 5em"}),
    )

    class Meta:
        model = FruitName
        fields = ["name", "kind", "language", "note", "position"]
        widgets = {
            "language": forms.TextInput(attrs={"size": 3, "placeholder": "de"}),
            "note": forms.TextInput(attrs={"size": 24}),
        }


class FruitImageAdminForm(ImageUploadForm):
    """A fruit image with its upload and details."""

    class Meta(ImageUploadForm.Meta):
        model = FruitImage
        fields = ["fruit", *ImageUploadForm.Meta.fields]


class FruitImageInlineForm(ImageUploadForm):
    """A fruit image row of the fruit page (the fruit is the page's), with its card-image box.

    The box is not the model field: the formset checks that one box at most is ticked, and the
    admin stores the choice after the images are saved (`fruit_set_card_image`), so a new upload
    can be chosen too, and moving the choice never meets the one-per-fruit constraint half-way.
    """

    card_image = forms.BooleanField(
        label=gettext_lazy("Card image"),
        required=False,
        help_text=gettext_lazy(
            "The image on the fruit's card; with none ticked, the oldest image."
        ),
    )

    class Meta(ImageUploadForm.Meta):
        model = FruitImage

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["card_image"].initial = self.instance.is_card_image


class FruitImageFormSet(forms.BaseInlineFormSet):
    """A fruit's images; at most one of them ticked as the card image."""

    def clean(self):
        super().clean()
        if any(self.errors):
            return
        if len(self._ticked()) > 1:
            raise ValidationError(_("Tick one card image at most."))

    def chosen_card_image_id(self) -> int | None:
        """The id of the ticked image once the formset is saved; None when none is ticked."""
        ticked = self._ticked()
        return ticked[0].instance.pk if ticked else None

    def _ticked(self) -> list[forms.Form]:
        # An image deleted on the same page is not chosen: the card falls back to the oldest.
        return [
            form
            for form in self.forms
            if getattr(form, "cleaned_data", {}).get("card_image") and not is_deleted(self, form)
        ]


class RelationForm(forms.ModelForm):
    """One relation: to a fruit of the catalog (picked) or to a variety by name."""

    class Meta:
        model = FruitRelation
        fields = ["kind", "other", "name", "note", "position"]
        widgets = {
            "name": forms.TextInput(attrs={"size": 18}),
            "note": forms.TextInput(attrs={"size": 18}),
            "position": forms.NumberInput(attrs={"style": "width: 5em"}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"].required = False  # a picked fruit gives its own
        self.fields["position"].required = False


class RelationFormSet(forms.BaseInlineFormSet):
    """The fruit's relations, checked as a whole as the API checks them (`clean_relations`)."""

    def clean(self):
        super().clean()
        if any(self.errors):
            return
        kept = kept_in_position_order(
            self,
            filled="kind",
            record=lambda data: {
                "kind": data["kind"],
                "fruit_id": data["other"].pk if data.get("other") else None,
                "name": None if data.get("other") else data.get("name", ""),
                "note": data.get("note", ""),
            },
        )
        try:
            self.relation_records = clean_relations(kept, fruit_id=self.instance.pk)
        except ValidationError as error:
            raise ValidationError(error.messages) from None

    def save(self, commit=True):
        """Replace the fruit's relations through the service, as the API does; record what
        changed for the admin's history (`new_objects`, `changed_objects`, `deleted_objects`)."""
        self.saved_forms = []
        if not self.has_changed():
            self.new_objects, self.changed_objects, self.deleted_objects = [], [], []
            return []
        before = list(FruitRelation.objects.filter(fruit=self.instance))
        fruit_set_relations(fruit=self.instance, relations=self.relation_records)
        after = list(FruitRelation.objects.filter(fruit=self.instance))
        self.new_objects, self.changed_objects, self.deleted_objects = after, [], before
        return after
