"""Retries without duplicates: the `Idempotency-Key` header on the creating POSTs.

A client that got no clear answer (a 503, a cut connection) sends its create again with the same
key; the service answers with the first answer instead of creating twice. `mixins` holds the
viewset side, `models` the stored answers (in the database, so every app server sees them).
"""
