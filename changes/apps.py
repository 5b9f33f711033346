from django.apps import AppConfig


class ChangesConfig(AppConfig):
    """The public change feed: every committed change of a fruit, publication or
    characteristic, in commit order, for mirrors and harvesters."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "changes"
    verbose_name = "Change feed"

    def ready(self):
        from changes import recording

        recording.connect()
