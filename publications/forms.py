"""Admin forms of publications: the same validators as the API (one rule, one place)."""

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from blobs.content_types import PDF
from blobs.forms import IMAGE_ACCEPT, ImageUploadForm, read_upload, upload_help_text
from blobs.pdf import validate_pdf_bytes
from blobs.uploads import check_image_bytes
from publications.models import (
    CITATION_FIELDS,
    Publication,
    PublicationFruit,
    PublicationFruitImage,
)
from publications.services import (
    publication_fruit_set_description,
    publication_set_cover,
    refresh_fruit_search,
)

# What a byte-upload field of these forms asks for: new bytes, their removal, or no change.
UNCHANGED = object()


def clean_upload_or_removal(form, upload: str, remove: str, validate, what: str):
    """The cleaned outcome of an upload field and its "remove" box: bytes, None, or UNCHANGED.

    `validate` is the API's own check of such bytes (one rule, one place); its errors land on
    the upload field, and asking for both an upload and a removal is an error on the box.
    """
    file, removing = form.cleaned_data.get(upload), form.cleaned_data.get(remove)
    if file and removing:
        form.add_error(
            remove, _("Either upload a new %(what)s or remove it, not both.") % {"what": what}
        )
    elif file:
        data = read_upload(file)
        try:
            validate(data)
        except ValidationError as error:
            form.add_error(upload, error.messages)
        else:
            return data
    elif removing:
        return None
    return UNCHANGED


def pdf_help_text() -> str:
    """What a PDF upload accepts, with the configured limit."""
    limit = filesizeformat(settings.FRUITCATALOG_MAX_UPLOAD_BYTES)
    return _("A PDF of at most %(limit)s; it replaces the stored one.") % {"limit": limit}


class PublicationAdminForm(forms.ModelForm):
    """A publication with a cover upload (checked by `check_image_bytes`) or removal.

    `new_cover` is the cleaned outcome (bytes, `None` to remove, or `UNCHANGED`); the admin
    stores it through `publication_set_cover`, as the API does.
    """

    cover_upload = forms.FileField(
        label=gettext_lazy("Cover image"),
        required=False,
        widget=forms.FileInput(attrs={"accept": IMAGE_ACCEPT}),
    )
    remove_cover = forms.BooleanField(label=gettext_lazy("Remove the cover"), required=False)

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
        self.checked_cover = None
        self.new_cover = clean_upload_or_removal(
            self, "cover_upload", "remove_cover", self.check_cover, _("cover")
        )
        return cleaned

    def check_cover(self, data: bytes) -> None:
        """Check an uploaded cover, keeping its thumbnail for `save_cover`."""
        self.checked_cover = check_image_bytes(data)

    def save(self, commit=True):
        """Save the publication and, when committing, its new cover (or its removal)."""
        publication = super().save(commit=commit)
        if commit:
            self.save_cover()
        return publication

    def save_cover(self):
        """Store the cleaned cover change through the service, once the publication row exists."""
        if self.new_cover is not UNCHANGED:
            checked = self.checked_cover if self.new_cover else None
            publication_set_cover(publication=self.instance, data=self.new_cover, checked=checked)


class PublicationFruitForm(forms.ModelForm):
    """A linked fruit with its PDF upload (checked by `validate_pdf_bytes`) or removal.

    `new_description` is the cleaned outcome, stored by `save()` through
    `publication_fruit_set_description`, as the API does.
    """

    description_upload = forms.FileField(
        label=gettext_lazy("Description (PDF)"),
        required=False,
        widget=forms.FileInput(attrs={"accept": PDF}),
    )
    remove_description = forms.BooleanField(label=gettext_lazy("Remove PDF"), required=False)

    class Meta:
        model = PublicationFruit
        fields = ["publication", "fruit", *CITATION_FIELDS]
        widgets = {  # a row of the links table fits a laptop
            "pages": forms.TextInput(attrs={"size": 4}),
            "plate": forms.TextInput(attrs={"size": 3}),
            "name_in_source": forms.TextInput(attrs={"size": 10}),
        }
        labels = {"is_first_description": gettext_lazy("First")}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["description_upload"].help_text = pdf_help_text()

    def clean_publication(self):
        """Keep a link's publication (see `clean_fruit`)."""
        return self._unchanged("publication", _("A link stays in its publication"))

    def clean_fruit(self):
        """Keep a link's fruit: its PDF and images describe that fruit, not another one."""
        return self._unchanged(
            "fruit", _("A link keeps its fruit (its PDF and images describe it)")
        )

    def _unchanged(self, name: str, reason: str):
        value = self.cleaned_data.get(name)
        if (
            self.instance.pk
            and value is not None
            and value.pk != getattr(self.instance, f"{name}_id")
        ):
            raise ValidationError(
                _("%(reason)s: delete this link and add a new one instead.") % {"reason": reason}
            )
        return value

    def clean(self):
        """Validate a new PDF, or take note that the PDF goes."""
        cleaned = super().clean()
        self.new_description = clean_upload_or_removal(
            self, "description_upload", "remove_description", validate_pdf_bytes, "PDF"
        )
        return cleaned

    def save(self, commit=True):
        """Save the link and, when committing, its new PDF (or its removal)."""
        link = super().save(commit=commit)
        if commit:
            self.save_description()
        return link

    def save_description(self):
        """Store the cleaned PDF change through the service, once the link row exists, and
        let search follow a changed name in the source."""
        if self.new_description is not UNCHANGED:
            publication_fruit_set_description(link=self.instance, data=self.new_description)
        if "name_in_source" in self.changed_data:
            refresh_fruit_search(self.instance.fruit_id)


class PublicationFruitImageForm(ImageUploadForm):
    """An image of a linked fruit: the same upload rules and details as a fruit image."""

    class Meta(ImageUploadForm.Meta):
        model = PublicationFruitImage
