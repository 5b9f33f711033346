"""Old import paths of the stored-bytes helpers that applied migrations name (see each module)."""
