"""Page-number pagination with a client-chosen, capped page size."""

from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """`page` from 1, `page_size` default 24 capped at 100; a bad size falls back to the default."""

    page_size = 24
    page_size_query_param = "page_size"
    max_page_size = 100
