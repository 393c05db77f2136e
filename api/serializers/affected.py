"""`POST /api/affected`: component versions in, the cases whose affected ranges hold them out."""

from __future__ import annotations

from rest_framework import serializers

from .base import ParameterErrorSerializer, ResponseSerializer
from .cases import CaseSummarySerializer


class AffectedRequestSerializer(serializers.Serializer):
    """Body of `POST /api/affected` (the bare mapping is accepted too)."""

    versions = serializers.DictField(
        child=serializers.CharField(),
        help_text='Component -> version, e.g. {"NCCL": "2.19.3", "NVIDIA driver": "535.104.05"}; '
        "components by name, slug or synonym.",
    )


class AffectedRangeSerializer(ResponseSerializer):
    """A case's `affected` item."""

    component = serializers.CharField(help_text="Component term name.")
    versions = serializers.ListField(child=serializers.CharField(), help_text="Versions listed as affected.")
    introduced = serializers.CharField(
        allow_null=True, help_text='First affected version (inclusive); "0": every earlier version.'
    )
    fixed = serializers.CharField(allow_null=True, help_text="First fixed version (exclusive).")
    last_affected = serializers.CharField(allow_null=True, help_text="Last affected version (inclusive).")


class AffectedMatchSerializer(ResponseSerializer):
    """A case whose range includes a sent version (or cannot be compared with it)."""

    case = CaseSummarySerializer(help_text="The case.")
    component = serializers.CharField(help_text="Component term name.")
    version = serializers.CharField(help_text="The version sent.")
    range = AffectedRangeSerializer(help_text="The case's range that decided.")
    why = serializers.CharField(help_text="Why, in words, e.g. `introduced 2.19.1 <= 2.19.3 < fixed 2.20.3`.")
    fixed = serializers.CharField(allow_null=True, help_text="The fixed version, when known.")
    workaround = serializers.CharField(allow_null=True, help_text="The case's first remediation step.")


class AffectedResponseSerializer(ResponseSerializer):
    """The cases a set of component versions falls into."""

    checked = serializers.DictField(
        child=serializers.CharField(), help_text="Component name -> version compared."
    )
    count = serializers.IntegerField(help_text="Matches in `affected`.")
    affected = AffectedMatchSerializer(many=True, help_text="Ranges including a version, newest case first.")
    unknown = AffectedMatchSerializer(
        many=True,
        help_text="Possibly affected, check by hand: a range whose bound has no order (e.g. `r0.3.0`), or "
        "a version before the earliest one listed in a range with no `introduced`.",
    )
    skipped = ParameterErrorSerializer(
        many=True,
        help_text="Keys left out, as `errors` would name them: components no vocabulary term names "
        "(`numpy` from a pasted `pip freeze`), with the nearest component names. Empty when every key "
        "was compared; when none was, the answer is a 400.",
    )
