"""Database backends: Django's own, with the request deadline (`core.db.deadlines`) and the work
a commit runs first (`core.db.commits`)."""
