"""`manage.py load_demo_data`: demo fruits, publications and characteristics, to try it out."""

from django.core.management.base import BaseCommand
from django.db import transaction

from catalog.demo import load_demo_fruits, load_demo_relations
from core.history import door
from identification.demo import load_demo_characteristics
from publications.demo import load_demo_publications


class Command(BaseCommand):
    help = (
        "Load about 30 real fruit varieties (apples, pears, quinces, cherries, plums, apricots, "
        "peaches) with their synonyms and a drawn image each, and two publications with a "
        "credited cover, linked fruits with a PDF each and a plate; the apples and pears are "
        "described by their real characteristics (citing the publication that describes them, "
        "with its pages) and parentage, and two apples are often confused with each other. "
        "Idempotent: fruits are matched by name, publications by title, a fruit with "
        "characteristics or relations keeps them, and a second run changes nothing."
    )

    def handle(self, *args, **options):
        verbose = options["verbosity"] > 1
        with transaction.atomic(), door("command"):
            fruits_created, fruits_present = load_demo_fruits(self.stdout if verbose else None)
            related = load_demo_relations()
            # Before the characteristics: their sources must be publications linking the fruit.
            pubs_created, pubs_present = load_demo_publications(self.stdout if verbose else None)
            described = load_demo_characteristics()
        if not (fruits_created or related or pubs_created or described):
            self.stdout.write(
                f"Demo data already loaded ({fruits_present} fruits, {pubs_present} "
                "publications): nothing to do."
            )
            return
        done = []
        if fruits_created:
            done.append(f"{fruits_created} demo fruits with an image each")
        if pubs_created:
            done.append(f"{pubs_created} demo publications with cover, linked fruits and PDFs")
        if described:
            done.append(f"the characteristics of {described} demo fruits")
        sentences = []
        if done:
            created = "Created " + " and ".join(done)
            if fruits_present or pubs_present:
                created += f" ({fruits_present + pubs_present} were already there)"
            sentences.append(created + ".")
        if related:
            whose = "demo fruit its" if related == 1 else "demo fruits their"
            sentences.append(f"Gave {related} {whose} relations.")
        self.stdout.write(self.style.SUCCESS(" ".join(sentences)))
