"""Old import paths of the database helpers that applied migrations name (see each module)."""
