"""The API's JSON parser, which never turns bad input into a 500."""

from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError, ValidationError


class SafeJSONParser(parsers.JSONParser):
    """DRF's JSON parser, also turning absurdly deep nesting (RecursionError) into a 400, and
    refusing strings no database stores: a NUL character (PostgreSQL's text refuses it) or a lone
    surrogate (`"\\ud800"`, which JSON may escape but UTF-8 cannot encode), in a value or a key."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_("JSON parse error - nesting too deep.")) from None
        if isinstance(data, dict):  # a field's bad string is that field's error
            for key, value in data.items():
                if storable(key) and not all(map(storable, strings_in(value))):
                    message = _("A string holds a null character or a lone surrogate.")
                    raise ValidationError({key: [message]})
        if not all(map(storable, strings_in(data))):
            raise ParseError(
                _("JSON parse error - a string holds a null character or a lone surrogate.")
            )
        return data


def strings_in(data):
    """Every string in parsed JSON, keys included, without recursion (any depth the parser
    took)."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            yield from item.keys()
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


def storable(text: str) -> bool:
    """Whether a database stores the string as it is: no NUL, and valid UTF-8."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
