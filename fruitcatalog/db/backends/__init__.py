"""Database backends: Django's own, with the request deadline (`fruitcatalog.db.deadlines`)."""
