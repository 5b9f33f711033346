"""Requests through a WSGI application — the one gunicorn serves — rather than the test client."""

import json

from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import RequestFactory
from django.utils.datastructures import CaseInsensitiveMapping


class WSGIResponse:
    """What a WSGI application answered: status, headers (in order, and by name), body."""

    def __init__(self, status: str, headers: list[tuple[str, str]], content: bytes):
        self.status_code = int(status.split(" ", 1)[0])
        self.reason_phrase = status.split(" ", 1)[1]
        self.header_list = headers
        self.headers = CaseInsensitiveMapping(dict(headers))
        self.content = content

    def __getitem__(self, name: str) -> str:
        return self.headers[name]

    def __contains__(self, name: str) -> bool:
        return name in self.headers

    def json(self):
        return json.loads(self.content)


class WSGIClient:
    """`get` and `head` as the test client takes them, answered by a WSGI `application`.

    A response is read and closed as a server would; like the test client, this holds back the
    closing of the test's database connection that Django's request signals would do.
    """

    def __init__(self, application):
        self.application = application
        self.factory = RequestFactory()

    def get(self, path: str, **extra) -> WSGIResponse:
        return self.request("GET", path, **extra)

    def head(self, path: str, **extra) -> WSGIResponse:
        return self.request("HEAD", path, **extra)

    def request(self, method: str, path: str, **extra) -> WSGIResponse:
        environ = self.factory.generic(method, path, **extra).environ
        started = []

        def start_response(status, headers, exc_info=None):
            started.append((status, list(headers)))

        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        try:
            body = self.application(environ, start_response)
            try:
                content = b"".join(body)
            finally:
                if hasattr(body, "close"):
                    body.close()
        finally:
            request_started.connect(close_old_connections)
            request_finished.connect(close_old_connections)
        (status, headers), = started
        if method == "HEAD":  # the server sends no body (gunicorn, as the test client does)
            content = b""
        return WSGIResponse(status, headers, content)


class Spy:
    """Django's application (the service's, behind its fronts), counting the requests it got."""

    def __init__(self):
        self.paths = []

    def __call__(self, environ, start_response):
        from fruitcatalog.wsgi import django_application

        self.paths.append(environ["PATH_INFO"])
        return django_application(environ, start_response)


class Stack:
    """The whole Django stack behind the same WSGI interface: every header, cookies too.

    A new handler per request: Django's middleware reads its settings when it is loaded.
    """

    def __getattr__(self, method):
        return getattr(WSGIClient(WSGIHandler()), method)


def answer(response) -> tuple:
    """Status, every header (repeats and all, in a fixed order) and body."""
    headers = response.header_list if hasattr(response, "header_list") else response.items()
    return response.status_code, sorted((k.lower(), v) for k, v in headers), response.content
