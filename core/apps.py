"""The plumbing as an app: its templates and static files, and what it connects at start-up."""

from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every app shares: the site's base templates, the request deadline, CORS, tokens."""

    name = "core"
    verbose_name = "Core"

    def ready(self):
        from corsheaders.signals import check_request_enabled
        from django.contrib.auth import get_user_model
        from django.db.models.signals import pre_save

        from core.http import cors
        from core.rest import auth

        check_request_enabled.connect(cors.allow_public_reads, dispatch_uid="public-reads")
        connect_request_deadlines()
        pre_save.connect(
            auth.revoke_tokens_on_password_change,
            sender=get_user_model(),
            dispatch_uid="revoke-tokens",
        )


def connect_request_deadlines() -> None:
    """Arm each request's database deadline when it starts and disarm it when it ends.

    Django's `close_old_connections` was connected to both signals when `django.db` was
    imported, so it runs before these. At `request_finished` it checks a connection that saw an
    error, still under the request's deadline; so at `request_started` it has nothing to check,
    only aged connections to close, and the check of a reused connection waits for its first
    use in the request, under the new deadline.
    """
    from django.core.signals import request_finished, request_started

    from core.db.deadlines import arm_for_request, disarm_after_request

    request_started.connect(arm_for_request, dispatch_uid="arm-database-deadline")
    request_finished.connect(disarm_after_request, dispatch_uid="disarm-database-deadline")
