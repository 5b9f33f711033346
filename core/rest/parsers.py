"""The API's JSON parser, which never turns bad input into a 500."""

from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError


class SafeJSONParser(parsers.JSONParser):
    """DRF's JSON parser, also turning absurdly deep nesting (RecursionError) into a 400."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_("JSON parse error - nesting too deep.")) from None
