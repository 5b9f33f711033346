"""Small factories of publication rows for the tests of every app."""

import factory

from publications.models import Publication


class PublicationFactory(factory.django.DjangoModelFactory):
    """Publications saved through the model's save hook (search column, cover metadata)."""

    class Meta:
        model = Publication

    title = factory.Sequence(lambda n: f"Publication {n}")
