"""The language of each request, English (the default) or German, and where it comes from.

- **Public pages** say their language in their path: German under `/de/` (`i18n_patterns`),
  English at the unprefixed URLs, whatever the browser's Accept-Language or the language cookie
  say. So each URL is one page in one language, for the edge cache, browsers' caches and search
  engines alike, and those pages carry no `Vary: Accept-Language`. The one exception is the bare
  root `/`: a visitor who chose German with the language switch (the `django_language` cookie,
  Django's) is sent on to `/de/` by a private redirect that varies by Cookie, which no shared
  cache keeps (the edge bypasses requests with that cookie). Accept-Language alone never
  redirects.
- **The API** (`/api/...`) takes `?lang=en|de` (part of the URL, so caches key by it), else
  `Accept-Language`; never the cookie, which the edge cache does not key by. Its answers say
  `Vary: Accept-Language`. Another `lang` is a 400.
- **The admin** and the API's login pages (`/api-auth/`): the cookie, else Accept-Language,
  as Django's `get_language_from_request` reads them.

Every answer says `Content-Language`. Django's `LocaleMiddleware` with
`prefix_default_language=False` gives every unprefixed path the default language (the admin and
the API included); this subclass decides per kind of path as above, through Django's public
translation functions.
"""

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.http import HttpResponseRedirect, JsonResponse
from django.middleware.locale import LocaleMiddleware
from django.urls import get_script_prefix
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.translation import gettext

API_PREFIX = "/api/"
# Pages for signed-in people, in the language they chose (cookie) or their browser's.
PERSONAL_PREFIXES = ("/admin/", "/api-auth/")
LANGUAGE_PARAMETER = "lang"
TEXT_TYPES = frozenset(
    {"application/json", "text/html", "text/plain", "application/vnd.oai.openapi"}
)


def is_api(path: str) -> bool:
    return path.startswith(API_PREFIX) or path == API_PREFIX.rstrip("/")


def language_codes() -> list[str]:
    return [code for code, _ in settings.LANGUAGES]


def api_language(request) -> str | None:
    """The API's language: `?lang`, else Accept-Language, else the default; None for a `lang`
    the service does not speak."""
    try:
        asked = request.GET.get(LANGUAGE_PARAMETER, "").strip().lower()
    except TooManyFieldsSent:
        asked = ""  # the request is refused (a 400) where its query is read next
    if asked:
        return asked if asked in language_codes() else None
    accept = request.META.get("HTTP_ACCEPT_LANGUAGE", "")
    for code, _quality in translation.trans_real.parse_accept_lang_header(accept):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


def speaks(response) -> bool:
    """Whether an answer's body is text a person may read (JSON, HTML: labels, messages), which
    is in the request's language; other bodies are bytes, the same in every language."""
    media_type = response.get("Content-Type", "").partition(";")[0].strip().lower()
    return media_type in TEXT_TYPES or media_type.endswith(("+json", "/html"))


def activate(request, language: str) -> None:
    translation.activate(language)
    request.LANGUAGE_CODE = translation.get_language()


class LanguageMiddleware(LocaleMiddleware):
    """Django's `LocaleMiddleware`, deciding the language per kind of path (module docstring)."""

    def process_request(self, request):
        # What fails before a language is chosen is answered in the default one, never in the
        # language this thread's previous request left active.
        translation.activate(settings.LANGUAGE_CODE)
        path = request.path_info
        if is_api(path):
            language = api_language(request)
            activate(request, language or settings.LANGUAGE_CODE)
            return None if language else self.bad_language()
        if path.startswith(PERSONAL_PREFIXES):
            activate(request, translation.get_language_from_request(request))
            return None
        language = translation.get_language_from_path(path) or settings.LANGUAGE_CODE
        activate(request, language)
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        if (
            path == "/"
            and request.method in ("GET", "HEAD")
            and chosen in language_codes()
            and chosen != language
        ):
            return self.to_chosen_language(request, chosen)
        return None

    def bad_language(self):
        codes = ", ".join(language_codes())
        message = gettext("Choose one of the languages %(codes)s.") % {"codes": codes}
        return JsonResponse({LANGUAGE_PARAMETER: [message]}, status=400)

    def to_chosen_language(self, request, language: str):
        """The root in the language the visitor chose: a redirect no shared cache keeps."""
        query = request.META.get("QUERY_STRING", "")
        target = f"{get_script_prefix()}{language}/" + (f"?{query}" if query else "")
        response = HttpResponseRedirect(target)
        patch_cache_control(response, private=True)
        return response

    def process_response(self, request, response):
        path = request.path_info
        if is_api(path):
            if not speaks(response):
                return response  # bytes (images, PDFs, archives) are the same in any language
            patch_vary_headers(response, ("Accept-Language",))
        elif path.startswith(PERSONAL_PREFIXES):
            patch_vary_headers(response, ("Accept-Language", "Cookie"))
        elif path == "/":
            # The root redirects a visitor who chose another language (above).
            patch_vary_headers(response, ("Cookie",))
        response.headers.setdefault("Content-Language", translation.get_language())
        return response
