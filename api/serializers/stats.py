"""Counts and distributions over every published case (`GET /api/stats`)."""

from __future__ import annotations

from rest_framework import serializers

from .base import ResponseSerializer
from .vocabulary import TermCountSerializer


class YearCountSerializer(ResponseSerializer):
    """Published cases of one publication year."""

    year = serializers.IntegerField(help_text="Publication year.")
    count = serializers.IntegerField(help_text="Published cases.")
    cases_url = serializers.URLField(help_text="The API case list of that year.")


class AcceleratorCountSerializer(ResponseSerializer):
    """Published cases on one accelerator term (a family counts its models' cases)."""

    accelerator = serializers.CharField(help_text="The accelerator term's name (A100, A100 80GB).")
    slug = serializers.CharField(help_text="Its slug, the value of the `accelerator` filter.")
    vendor = serializers.CharField(allow_null=True, help_text="The chip's vendor.")
    is_family = serializers.BooleanField(help_text="Whether the term is a family.")
    count = serializers.IntegerField(help_text="Published cases.")
    cases_url = serializers.URLField(help_text="The API case list on that accelerator.")


class DistributionSerializer(ResponseSerializer):
    """Nearest-rank percentiles of the known values (each one a value that occurs)."""

    known = serializers.IntegerField(help_text="Published cases with a known value.")
    unknown = serializers.IntegerField(help_text="Published cases without one.")
    min = serializers.IntegerField(allow_null=True, help_text="Smallest; null if none known.")
    p25 = serializers.IntegerField(allow_null=True, help_text="25th percentile.")
    median = serializers.IntegerField(allow_null=True, help_text="50th percentile.")
    p75 = serializers.IntegerField(allow_null=True, help_text="75th percentile.")
    p90 = serializers.IntegerField(allow_null=True, help_text="90th percentile.")
    max = serializers.IntegerField(allow_null=True, help_text="Largest; null if none known.")


class ResolveBucketSerializer(ResponseSerializer):
    """Cases whose time to resolve falls in one range."""

    label = serializers.CharField(help_text="e.g. `1 to 6 hours`.")  # type: ignore[assignment]  # a field named like Field.label
    min_seconds = serializers.IntegerField(help_text="Inclusive lower bound.")
    max_seconds = serializers.IntegerField(allow_null=True, help_text="Exclusive upper bound; null: none.")
    count = serializers.IntegerField(help_text="Published cases in the range.")


class ResolveDistributionSerializer(DistributionSerializer):
    """Time to resolve in seconds: percentiles and a histogram."""

    buckets = ResolveBucketSerializer(many=True, help_text="From short to long.")


class ScaleBandCountSerializer(ResponseSerializer):
    """Published cases whose accelerator count falls in one band of the `scale` facet."""

    scale = serializers.CharField(help_text="The band's slug, the value of `?scale=`: e.g. `1024-9999`.")
    label = serializers.CharField(help_text="e.g. `1,024–9,999 accelerators`.")  # type: ignore[assignment]  # a field named like Field.label
    min_accelerators = serializers.IntegerField(allow_null=True, help_text="Inclusive; null: none.")
    max_accelerators = serializers.IntegerField(allow_null=True, help_text="Inclusive; null: none.")
    count = serializers.IntegerField(help_text="Published cases in the band.")
    cases_url = serializers.URLField(help_text="The case list filtered to the band.")


class StatsSerializer(ResponseSerializer):
    """Counts and distributions over every published case."""

    total = serializers.IntegerField(help_text="Published cases.")
    by_year = YearCountSerializer(many=True, help_text="Publication years in order.")
    by_root_cause = TermCountSerializer(many=True, help_text="Most frequent first.")
    by_symptom = TermCountSerializer(many=True, help_text="Most frequent first.")
    by_component = TermCountSerializer(many=True, help_text="Most frequent first.")
    by_accelerator = AcceleratorCountSerializer(
        many=True,
        help_text="Every accelerator term the cases name, families and models, most frequent first.",
    )
    by_accelerator_family = AcceleratorCountSerializer(
        many=True, help_text="Accelerator families only (each case once), most frequent first."
    )
    time_to_resolve_seconds = ResolveDistributionSerializer(
        help_text="Time to resolve in seconds, over the cases where it is known."
    )
    accelerator_count = DistributionSerializer(
        help_text="Accelerators involved, over the cases where it is known."
    )
    by_scale = ScaleBandCountSerializer(
        many=True,
        help_text="Cases per band of accelerator count, smallest first; cases without a count left out.",
    )
