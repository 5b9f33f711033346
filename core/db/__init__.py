"""Database plumbing: ids, row locks, search folding and ORM expressions the apps share."""
