"""The viewset side of idempotent creates: claim the key, answer a retry, store the answer.

The rule: a create sent with `Idempotency-Key` (1 to 255 visible ASCII characters) by the same
user within `IDEMPOTENCY_KEY_HOURS` is processed once; a retry gets the first answer again with
`Idempotent-Replayed: true`. The same key with another method, path or body is a 422, a retry
while the first is still processed a 409. Answers of 5xx are not stored, so the retry runs again.

The claim is a row committed before the create runs (outside its transaction), so a concurrent
retry on any app server sees it. A claim whose request ended without an answer (a killed worker,
a database gone before the claim could be released) is taken over: on PostgreSQL as soon as its
row is not locked by a running create, on SQLite after `IDEMPOTENCY_CLAIM_SECONDS`.
"""

import hashlib
import json
import logging
import re
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import get_language, gettext, gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, status
from rest_framework.utils.encoders import JSONEncoder

from core.idempotency.models import IdempotentRequest

logger = logging.getLogger(__name__)

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,255}")  # visible ASCII, no space
# The language a replayed body is in is the first answer's, whatever the retry asks for.
KEPT_HEADERS = ("Content-Type", "Location", "Content-Language")
PURGE_BATCH = 1000  # expired rows deleted per claim, at most: a claim's cost stays bounded
# Answers that say "try again" are not kept: a retry must run again, not replay them.
TRY_AGAIN_STATUSES = {408, 409, 423, 425, 429}
CLAIM_LOCK_GRACE_SECONDS = 2  # PostgreSQL: a claim younger than this may not hold its lock yet

IDEMPOTENCY_KEY = OpenApiParameter(
    HEADER,
    # KEY_PATTERN as the schema says it: visible ASCII is "!" (0x21) to "~" (0x7e).
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"},
    OpenApiParameter.HEADER,
    description=(
        "Optional. 1 to 255 visible ASCII characters (no space), e.g. a UUID; any other key "
        "is a 400 and nothing is written. A retry with the same key by "
        "the same user within 24 hours writes nothing and gets the first answer again (same "
        "status and body, plus `Idempotent-Replayed: true`); bodies are compared by content "
        "(JSON by value, multipart by fields and file bytes). The same key with another "
        "method, path or body is a 422; a retry while the first is still processed, a 409. "
        "Answers of 5xx are not kept: the retry runs again."
    ),
)


IDEMPOTENT_REPLAYED = OpenApiParameter(
    REPLAYED_HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    enum=["true"],
    response=[201],
    description=(
        "`true` on an answer replayed for a retry with the same `Idempotency-Key` (a replayed "
        "400 carries it too)."
    ),
)
IDEMPOTENCY_PARAMETERS = [IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED]


class KeyReused(exceptions.APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_detail = gettext_lazy(
        "This Idempotency-Key was used for another request (method, path or body); use a new "
        "key for a new request."
    )
    default_code = "idempotency_key_reused"


class StillProcessing(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = gettext_lazy(
        "A request with this Idempotency-Key is still being processed; retry in a few seconds."
    )
    default_code = "idempotency_key_in_use"


def request_key(request) -> str | None:
    """The request's key, None without one; a 400 when it is malformed."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not KEY_PATTERN.fullmatch(key):
        raise exceptions.ValidationError(
            {HEADER: [gettext("An idempotency key is 1 to 255 visible ASCII characters.")]}
        )
    return key


def body_digest(request) -> str:
    """SHA-256 of the parsed body's content: JSON by value, multipart by fields and file bytes."""
    data = request.data
    if isinstance(data, bytes):
        content = data
    elif hasattr(data, "lists"):  # a QueryDict: form fields and uploaded files
        parts = []
        for name, values in sorted(data.lists()):
            for value in values:
                if hasattr(value, "chunks"):
                    digest = hashlib.sha256()
                    for chunk in value.chunks():
                        digest.update(chunk)
                    value.seek(0)
                    parts.append([name, "file", digest.hexdigest()])
                else:
                    parts.append([name, "field", value])
        content = json.dumps(parts).encode()
    else:
        content = json.dumps(data, cls=JSONEncoder, sort_keys=True).encode()
    return hashlib.sha256(content).hexdigest()


def fingerprint(request) -> str:
    """What a retry must repeat: method, path with its query (an import's `dry_run` makes
    another request) and the body's content."""
    return hashlib.sha256(
        f"{request.method}\n{request.get_full_path()}\n{body_digest(request)}".encode()
    ).hexdigest()


def replay(record: IdempotentRequest) -> HttpResponse:
    """The stored answer, marked as replayed."""
    response = HttpResponse(bytes(record.content), status=record.status)
    for name, value in record.headers.items():
        response.headers[name] = value
    response.headers[REPLAYED_HEADER] = "true"
    return response


def claim(request, key: str) -> IdempotentRequest | HttpResponse:
    """Claim `key` for this request (the new row), or the stored answer to replay; 409, 422."""
    user, digest = request.user, fingerprint(request)
    now = timezone.now()
    expired = now - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    purge_expired(expired)
    for _ in range(3):  # each turn ends or removes one obstacle another request left
        try:
            with transaction.atomic():
                return IdempotentRequest.objects.create(
                    user=user, key=key, fingerprint=digest, created_at=now
                )
        except IntegrityError:
            pass
        record = IdempotentRequest.objects.filter(user=user, key=key).first()
        if record is None:
            continue  # removed meanwhile (expired, or its create failed): claim it again
        if record.created_at < expired:
            IdempotentRequest.objects.filter(pk=record.pk, created_at=record.created_at).delete()
            continue
        if record.fingerprint != digest:
            raise KeyReused
        if record.status is not None:
            return replay(record)
        if still_processing(record, now):
            raise StillProcessing
        # The first request ended without an answer (a killed worker, a database gone while it
        # ran): nothing of it was kept, so this one runs it.
        if IdempotentRequest.objects.filter(
            pk=record.pk, status__isnull=True, created_at=record.created_at
        ).update(created_at=now):
            record.created_at = now
            return record
    raise StillProcessing


def still_processing(record: IdempotentRequest, now) -> bool:
    """Whether the request holding an unanswered claim may still be running.

    On PostgreSQL a running create holds its claim's row lock (`hold`), so an unlocked claim
    older than a moment (the time between committing the claim and taking its lock) belongs to
    a request that ended. SQLite has no row locks: a claim counts as running until
    `IDEMPOTENCY_CLAIM_SECONDS` have passed.
    """
    age = now - record.created_at
    if connection.vendor != "postgresql":
        return age < timedelta(seconds=settings.IDEMPOTENCY_CLAIM_SECONDS)
    if age < timedelta(seconds=CLAIM_LOCK_GRACE_SECONDS):
        return True
    with transaction.atomic():
        unlocked = IdempotentRequest.objects.select_for_update(skip_locked=True).filter(
            pk=record.pk
        )
        return not unlocked.exists()


def hold(record: IdempotentRequest) -> None:
    """Lock the claim's row for the rest of the create's transaction (PostgreSQL)."""
    if connection.vendor == "postgresql":
        list(IdempotentRequest.objects.select_for_update().filter(pk=record.pk).values("pk"))


def purge_expired(expired) -> None:
    """Delete a bounded batch of rows past their day."""
    old = IdempotentRequest.objects.filter(created_at__lt=expired).values("pk")[:PURGE_BATCH]
    IdempotentRequest.objects.filter(pk__in=list(old.values_list("pk", flat=True))).delete()


def is_kept(response) -> bool:
    """Whether an answer is the request's outcome for good, to replay: not a 5xx, nor a 4xx
    that says "try again" (a conflict with a concurrent change, a rate limit, a timeout)."""
    return response.status_code < 500 and response.status_code not in TRY_AGAIN_STATUSES


def store(record: IdempotentRequest, response) -> None:
    """Keep the answer under the claimed key (raises when the database cannot store it)."""
    if hasattr(response, "render"):
        response.render()
    record.status = response.status_code
    record.content = response.content
    record.headers = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
    # The body's words are in the request's language, which the language middleware names
    # only later, on the way out.
    record.headers.setdefault("Content-Language", get_language())
    record.save(update_fields=["status", "content", "headers"])


def release(record: IdempotentRequest) -> None:
    """Forget the claim, so the retry runs again (best effort: a dead database keeps it, and
    the retry then finds it unlocked, or lapsed on SQLite)."""
    try:
        IdempotentRequest.objects.filter(pk=record.pk, status__isnull=True).delete()
    except DatabaseError:
        logger.warning("Could not release the claim of %s %r", HEADER, record.key)


class IdempotentCreateMixin:
    """`create` honours `Idempotency-Key` (see the module); put it before the viewset's bases.

    A successful answer is stored in the create's own transaction, which also holds the claim's
    row lock: a process killed after the write cannot leave the write without its answer, and a
    failure to store the answer undoes the write (a 503, and the retry runs again). An error
    answer wrote nothing; it is stored once DRF has made it, or forgotten when it says to try
    again.
    """

    def create(self, request, *args, **kwargs):
        key = request_key(request)
        if key is None or not request.user.is_authenticated:
            return super().create(request, *args, **kwargs)
        outcome = claim(request, key)
        if isinstance(outcome, HttpResponse):
            return outcome
        request.idempotency_claim = outcome
        with transaction.atomic():
            hold(outcome)
            response = super().create(request, *args, **kwargs)
            # The answer as it will be sent: DRF's own finalizing picks the renderer.
            response = super().finalize_response(request, response, *args, **kwargs)
            if is_kept(response):
                store(outcome, response)
                request.idempotency_claim = None
        return response

    def handle_exception(self, exc):
        try:
            return super().handle_exception(exc)
        except Exception:
            self._forget_claim()
            raise

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        claimed = getattr(request, "idempotency_claim", None)
        if claimed is not None:
            if is_kept(response):
                request.idempotency_claim = None
                try:
                    store(claimed, response)
                except DatabaseError:
                    logger.warning("Could not store the answer under %s %r", HEADER, claimed.key)
                    self._forget_claim(claimed)
            else:
                self._forget_claim()
        return response

    def _forget_claim(self, claimed=None) -> None:
        claimed = claimed or getattr(self.request, "idempotency_claim", None)
        self.request.idempotency_claim = None
        if claimed is not None:
            release(claimed)
