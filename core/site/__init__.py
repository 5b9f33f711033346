"""What the HTML screens share: the public pages' paging and 404 page, admin changelist rows."""
