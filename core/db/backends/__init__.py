"""Database backends: Django's own, with the request deadline (`core.db.deadlines`)."""
