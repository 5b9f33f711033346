"""Admin forms of publications: the same validators as the API (one rule, one place)."""

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat

from fruitcatalog.blobs.content_types import PDF
from fruitcatalog.blobs.forms import IMAGE_ACCEPT, ImageUploadForm, read_upload, upload_help_text
from fruitcatalog.blobs.pdf import validate_pdf_bytes
from fruitcatalog.blobs.uploads import validate_image_bytes
from publications.models import Publication, PublicationFruit, PublicationFruitImage
from publications.services import publication_fruit_set_description, publication_set_cover

# What a byte-upload field of these forms asks for: new bytes, their removal, or no change.
UNCHANGED = object()


def pdf_help_text() -> str:
    """What a PDF upload accepts, with the configured limit."""
    limit = filesizeformat(settings.FRUITCATALOG_MAX_UPLOAD_BYTES)
    return f"A PDF of at most {limit}; it replaces the stored one."


class PublicationAdminForm(forms.ModelForm):
    """A publication with a cover upload (checked by `validate_image_bytes`) or removal.

    `new_cover` is the cleaned outcome (bytes, `None` to remove, or `UNCHANGED`); the admin
    stores it through `publication_set_cover`, as the API does.
    """

    cover_upload = forms.FileField(
        label="Cover image",
        required=False,
        widget=forms.FileInput(attrs={"accept": IMAGE_ACCEPT}),
    )
    remove_cover = forms.BooleanField(label="Remove the cover", required=False)

    class Meta:
        model = Publication
        fields = ["title", "authors", "year", "description"]
        widgets = {"authors": forms.TextInput(attrs={"class": "vTextField"})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["cover_upload"].help_text = upload_help_text()

    def clean(self):
        """Validate a new cover, or take note that the cover goes."""
        cleaned = super().clean()
        self.new_cover = UNCHANGED
        upload, remove = cleaned.get("cover_upload"), cleaned.get("remove_cover")
        if upload and remove:
            self.add_error("remove_cover", "Either upload a new cover or remove it, not both.")
        elif upload:
            data = read_upload(upload)
            try:
                validate_image_bytes(data)
            except ValidationError as error:
                self.add_error("cover_upload", error.messages)
            else:
                self.new_cover = data
        elif remove:
            self.new_cover = None
        return cleaned

    def save(self, commit=True):
        """Save the publication and, when committing, its new cover (or its removal)."""
        publication = super().save(commit=commit)
        if commit:
            self.save_cover()
        return publication

    def save_cover(self):
        """Store the cleaned cover change through the service, once the publication row exists."""
        if self.new_cover is not UNCHANGED:
            publication_set_cover(publication=self.instance, data=self.new_cover)


class PublicationFruitForm(forms.ModelForm):
    """A linked fruit with its PDF upload (checked by `validate_pdf_bytes`) or removal.

    `new_description` is the cleaned outcome, stored by `save()` through
    `publication_fruit_set_description`, as the API does.
    """

    description_upload = forms.FileField(
        label="Description (PDF)",
        required=False,
        widget=forms.FileInput(attrs={"accept": PDF}),
    )
    remove_description = forms.BooleanField(label="Remove the PDF", required=False)

    class Meta:
        model = PublicationFruit
        fields = ["publication", "fruit"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["description_upload"].help_text = pdf_help_text()

    def clean_publication(self):
        """Keep a link's publication (see `clean_fruit`)."""
        return self._unchanged("publication", "A link stays in its publication")

    def clean_fruit(self):
        """Keep a link's fruit: its PDF and images describe that fruit, not another one."""
        return self._unchanged("fruit", "A link keeps its fruit (its PDF and images describe it)")

    def _unchanged(self, name: str, reason: str):
        value = self.cleaned_data.get(name)
        if (
            self.instance.pk
            and value is not None
            and value.pk != getattr(self.instance, f"{name}_id")
        ):
            raise ValidationError(f"{reason}: delete this link and add a new one instead.")
        return value

    def clean(self):
        """Validate a new PDF, or take note that the PDF goes."""
        cleaned = super().clean()
        self.new_description = UNCHANGED
        upload, remove = cleaned.get("description_upload"), cleaned.get("remove_description")
        if upload and remove:
            self.add_error("remove_description", "Either upload a new PDF or remove it, not both.")
        elif upload:
            data = read_upload(upload)
            try:
                validate_pdf_bytes(data)
            except ValidationError as error:
                self.add_error("description_upload", error.messages)
            else:
                self.new_description = data
        elif remove:
            self.new_description = None
        return cleaned

    def save(self, commit=True):
        """Save the link and, when committing, its new PDF (or its removal)."""
        link = super().save(commit=commit)
        if commit:
            self.save_description()
        return link

    def save_description(self):
        """Store the cleaned PDF change through the service, once the link row exists."""
        if self.new_description is not UNCHANGED:
            publication_fruit_set_description(link=self.instance, data=self.new_description)


class PublicationFruitImageForm(ImageUploadForm):
    """An image of a linked fruit: the same upload rules as a fruit image."""

    class Meta:
        model = PublicationFruitImage
        fields = []
