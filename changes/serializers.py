"""The change feed's answer."""

from rest_framework import serializers

from changes.models import Action, Kind


class ChangeSerializer(serializers.Serializer):
    """One committed change of one object: no user, no content, only what and when."""

    seq = serializers.IntegerField(
        help_text="Increases strictly in commit order; gaps are numbers never committed."
    )
    at = serializers.DateTimeField(help_text="When the change was committed.")
    kind = serializers.ChoiceField(choices=Kind.choices, help_text="What changed.")
    id = serializers.IntegerField(
        source="object_id",
        help_text="The id of the fruit, publication or characteristic (a deleted one's too).",
    )
    action = serializers.ChoiceField(
        choices=Action.choices,
        help_text=(
            "`created`, `changed` or `deleted`; `restored` (a deleted fruit back under its id) "
            "and `reverted` (back to an earlier version) as the history's undo writes them. "
            "Fetch the object to see what it is now."
        ),
    )


class ChangePageSerializer(serializers.Serializer):
    """A page of the feed and the cursor to continue from."""

    results = ChangeSerializer(many=True, help_text="Oldest first; empty when nothing is newer.")
    next = serializers.CharField(
        help_text=(
            "The cursor to pass as `after` next time: after the last entry listed, or the "
            "cursor given when nothing is newer yet. Always present: keep polling with it."
        )
    )
