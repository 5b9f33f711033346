"""Races reproduced deterministically: a concurrent delete committing at a chosen moment."""


def deleting_after(monkeypatch, owner, name, delete):
    """Make `owner.name` return as before, then run `delete` (a concurrent delete commits)."""
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        delete()
        return result

    monkeypatch.setattr(owner, name, wrapper)
