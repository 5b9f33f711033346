"""What the tests, `bench/` and `docs/screenshots.py` share: media made in memory, the reference
thumbnail pipeline, hostile PDFs, deploy/nginx.conf on loopback, Chromium for browser tests.

Never imported by the service itself.
"""
