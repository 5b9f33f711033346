"""Reading the change feed: opaque cursors, and the page of entries after one."""

import base64
import binascii
import re
from dataclasses import dataclass

from django.db.models import Max

from changes.models import Change, PrunedThrough
from core.db.ids import ID_MAX

# What a cursor encodes: the `seq` of the last entry its reader has seen. Versioned, so that the
# encoding can change without old cursors being misread.
CURSOR_TEXT = re.compile(r"c1:(0|[1-9][0-9]{0,18})")


class BadCursor(ValueError):
    """Text that is not a cursor this feed gave."""


class CursorGone(Exception):
    """A cursor the feed can no longer continue: entries after it were pruned (or it is ahead
    of every entry, as after a restore from an older backup). Start again from a full export."""


def encode_cursor(seq: int) -> str:
    """The opaque cursor of the position after entry `seq` (0: before every entry)."""
    return base64.urlsafe_b64encode(f"c1:{seq}".encode()).rstrip(b"=").decode()


def decode_cursor(text: str) -> int:
    """The `seq` a cursor stands for; `BadCursor` unless the feed could have given it."""
    try:
        padded = text + "=" * (-len(text) % 4)
        raw = base64.b64decode(padded.encode("ascii"), altchars=b"-_", validate=True)
        match = CURSOR_TEXT.fullmatch(raw.decode("ascii"))
    except (UnicodeError, binascii.Error):
        match = None
    if match is None or int(match[1]) > ID_MAX or encode_cursor(int(match[1])) != text:
        raise BadCursor(text)
    return int(match[1])


@dataclass
class Page:
    """Entries in commit order, and the `seq` to continue after."""

    entries: list[Change]
    last_seq: int


def pruned_through() -> int:
    """The newest `seq` pruning has deleted (0: none)."""
    return PrunedThrough.objects.values_list("seq", flat=True).first() or 0


def newest_seq(boundary: int | None = None) -> int:
    """The newest `seq` the feed has given out (0: none yet); `boundary`: the pruning
    boundary, when read already."""
    if boundary is None:
        boundary = pruned_through()
    return max(Change.objects.aggregate(newest=Max("seq"))["newest"] or 0, boundary)


def read_page(after: int | None, limit: int) -> Page:
    """Up to `limit` entries after `after` (None: from the oldest kept one), oldest first.

    The entries are read before the pruning boundary: pruning deletes entries and moves the
    boundary in one transaction, so a page read before it committed is whole, and one read
    after it meets the new boundary. `CursorGone` for a cursor before the boundary, or ahead of
    every entry given out.
    """
    entries = Change.objects.order_by("seq")
    if after is not None:
        entries = entries.filter(seq__gt=after)
    entries = list(entries[:limit])
    boundary = pruned_through()
    if after is not None and after < boundary:
        raise CursorGone
    if entries:
        return Page(entries, entries[-1].seq)
    if after is None:
        return Page([], boundary)
    if after > newest_seq(boundary):
        raise CursorGone
    return Page([], after)
