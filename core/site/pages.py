"""What every public page shares: numbered paging that keeps the query, the 404 page.

The pages themselves live with their data: the card grid in `catalog.pages`, the publication
pages in `publications.pages`, identify and compare in `identification.pages`, and a fruit's
page, which reads all three apps, in `wholefruit.pages`.
"""

from dataclasses import dataclass

from django.conf import settings
from django.core.paginator import EmptyPage
from django.shortcuts import render
from django.urls import reverse, translate_url
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from core.rest.pagination import PageNumberPagination, ScalablePaginator

PAGE_SIZE = PageNumberPagination.page_size  # a grid page and an API page hold the same fruits
PAGE_WINDOW = 2  # page links shown on each side of the current one
NO_SUCH_PAGE = _("There is no such page.")
BAD_PAGE = _("page: a page is a whole number from 1.")
# Pages load their stylesheet, script and images from this origin only; should some text slip
# through escaping, the browser still runs nothing from elsewhere and nothing inline.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


@dataclass(frozen=True)
class PageLink:
    """One entry of the numbered paging: a page number with its URL, or a gap (`number` None)."""

    number: int | None
    url: str = ""
    is_current: bool = False


def url_with(request, **changes) -> str:
    """The current query string with some parameters replaced (`None` removes one)."""
    query = request.GET.copy()
    for name, value in changes.items():
        if value is None:
            query.pop(name, None)
        elif isinstance(value, list):
            query.setlist(name, value)
        else:
            query[name] = str(value)
    encoded = query.urlencode()
    return f"?{encoded}" if encoded else request.path


def page_number(request) -> int | None:
    """The `page` parameter as a whole number from 1 (1 when absent), or None when it is not."""
    number = request.GET.get("page") or "1"
    if number.isascii() and number.isdigit() and len(number) <= 18 and int(number) >= 1:
        return int(number)
    return None


def paginate(queryset, number: int):
    """Page `number` of `queryset` (ids first, bounded count), or None past the last page."""
    try:
        return ScalablePaginator(queryset, PAGE_SIZE).page(number)
    except EmptyPage:
        return None


def render_list_page(request, template: str, filterset, context: dict, *, items: str, prepare=None):
    """A filtered, numbered list page: `filterset`'s rows, page by page, as `items`.

    A bad parameter is a 400 page naming it, a page past the end a 404 page; both keep the
    search form (`context`) so the visitor can change what they asked. `prepare(page)`, when
    given, readies the page's rows and returns more context (a search's "did you mean").
    """
    if not filterset.is_valid():
        errors = [
            f"{name}: {message}"
            for name, messages in filterset.errors.items()
            for message in messages
        ]
        return render_page(request, template, {**context, "errors": errors}, status=400)
    number = page_number(request)
    if number is None:
        return render_page(request, template, {**context, "errors": [BAD_PAGE]}, status=400)
    page = paginate(filterset.qs, number)
    if page is None:
        return render_page(request, template, {**context, "errors": [NO_SUCH_PAGE]}, 404)
    previous_url = (
        url_with(request, page=page.previous_page_number()) if page.has_previous() else ""
    )
    next_url = url_with(request, page=page.next_page_number()) if page.has_next() else ""
    if prepare is not None:
        context.update(prepare(page))
    context.update(
        {items: page.object_list},
        page=page,
        page_links=page_links(request, page),
        previous_url=previous_url,
        next_url=next_url,
    )
    return render_page(request, template, context)


def page_links(request, page) -> list[PageLink]:
    """First, last, and a window around the current page, with gaps; the filters kept.

    Above `EXACT_COUNT_LIMIT` matches the count is an estimate, so the last page is not offered
    (paging on by "next" stays exact).
    """
    paginator = page.paginator
    current = page.number
    if paginator.count_is_estimate:
        last = current + 1 if page.has_next() else current
    else:
        last = paginator.num_pages
    numbers = {1, last, *range(max(1, current - PAGE_WINDOW), min(last, current + PAGE_WINDOW) + 1)}
    links: list[PageLink] = []
    previous = 0
    for number in sorted(numbers):
        if number - previous > 1:
            links.append(PageLink(None))
        url = url_with(request, page=None if number == 1 else number)
        links.append(PageLink(number, url, number == current))
        previous = number
    return links


def language_links(request, *, absolute: bool = True) -> list[dict]:
    """This page in each language: `code`, `name` (in its own language), `url` (the path, the
    query kept) and, when `absolute`, `absolute` (the URL with the request's host, which a
    page refusing the request's Host header must not read), the current language marked. A
    path no page answers (a 404) links the other language's catalog."""
    current = translation.get_language()
    here = request.path
    query = request.META.get("QUERY_STRING", "")
    links = []
    for code, name in settings.LANGUAGES:
        url = translate_url(here, code)
        # A path of the site only: "//host/…" is read as another host's by the URL parser.
        unsafe = url.startswith("//") or not url.startswith("/")
        if unsafe or (url == here and code != current):
            with translation.override(code):
                url = reverse("catalog-grid")
        elif query:
            url = f"{url}?{query}"
        links.append(
            {
                "code": code,
                "name": name,
                "url": url,
                "is_current": code == current,
            }
        )
        if absolute:
            links[-1]["absolute"] = request.build_absolute_uri(url)
    return links


def render_page(request, template: str, context: dict, status: int = 200):
    """A public page: the template with what the shared layout needs.

    A page found (200) names its versions in every language for search engines (`alternates`:
    `<link rel="alternate" hreflang>`); every page links the others (the language switch).
    """
    context.setdefault("api_docs_url", reverse("swagger-ui"))
    languages = language_links(request, absolute=status == 200)
    context.setdefault("alternates", languages if status == 200 else [])
    context.setdefault("other_languages", [link for link in languages if not link["is_current"]])
    response = render(request, template, context, status=status)
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return response


def not_found(request, exception=None, *, message: str = ""):
    """The 404 page of the public site (the API answers JSON 404s itself)."""
    return render_page(
        request,
        "core/site/404.html",
        {"message": message or _("There is no page at this address.")},
        status=404,
    )
