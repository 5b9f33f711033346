"""Helpers of the tests of streamed responses (the exports) of every app."""


def body(response) -> bytes:
    """A streamed response's whole body."""
    return b"".join(response.streaming_content)
