"""`POST /api/match`: the pasted log it reads and the cases it ranks by what the log contains."""

from __future__ import annotations

from rest_framework import serializers

from incidents import limits
from incidents.selectors import empty_detail, is_blank

from .base import ResponseSerializer
from .cases import CaseSummarySerializer
from .codes import FoundErrorCodeSerializer
from .fields import StrictCharField, StrictIntegerField

MAX_LOG_CHARS = 1_000_000
MAX_MATCH_LIMIT = limits.API_MATCH  # why it differs from MCP match_log: incidents/limits.py


class MatchRequestSerializer(serializers.Serializer):
    """Body of `POST /api/match`."""

    text = StrictCharField(
        max_length=MAX_LOG_CHARS,
        trim_whitespace=False,
        help_text="Pasted log text: traceback, NCCL or kernel log, dmesg, Slurm output "
        f"(at most {MAX_LOG_CHARS:,} characters; NUL bytes are read as spaces).",
    )
    limit = StrictIntegerField(
        min_value=1, max_value=MAX_MATCH_LIMIT, default=10, help_text="Most cases to return."
    )

    def validate_text(self, text: str) -> str:
        """A log of blanks is no log: refused as an empty one is (`selectors.empty_detail`,
        the words of every door), as the /match/ page and MCP `match_log` refuse it."""
        if is_blank(text):
            raise serializers.ValidationError(empty_detail(text))
        return text


class MatchedLineSerializer(ResponseSerializer):
    """A line of the pasted text that matched, once, with every term it matched."""

    line_number = serializers.IntegerField(help_text="1-based line in the pasted text.")
    line = serializers.CharField(help_text="The line, cut to 300 characters.")
    terms = serializers.ListField(
        child=serializers.CharField(),
        help_text="Vocabulary terms and tokens the line matched, strongest first.",
    )
    occurrences = serializers.IntegerField(
        help_text=(
            "How many lines of the text it stands for (1 or more): itself and the lines repeating it,"
            " exactly or but for their digits (timestamps, pids, ranks), with the same terms;"
            " `line_number` is the first."
        )
    )


class LogLineSerializer(ResponseSerializer):
    """One line of the pasted text, once, with everything in it the case shares."""

    line_number = serializers.IntegerField(help_text="1-based line in the pasted text.")
    line = serializers.CharField(help_text="The line, cut to 300 characters.")
    terms = serializers.ListField(child=serializers.CharField(), help_text="Terms and tokens it matched.")
    spans = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="[start, end) character offsets of the matches in `line`.",
    )
    occurrences = serializers.IntegerField(
        help_text=(
            "How many lines of the text it stands for (1 or more): itself and the lines repeating it,"
            " exactly or but for their digits (timestamps, pids, ranks), with the same terms;"
            " `line_number` is the first."
        )
    )


class LogHitSerializer(CaseSummarySerializer):
    """A case the log points at, with the lines that point there."""

    score = serializers.FloatField(help_text="How strongly the log points at this case.")
    confidence = serializers.CharField(
        help_text="`strong` (specific signatures we have seen), `possible`, or `weak` "
        "(little in common: probably not this case)."
    )
    why = serializers.CharField(
        help_text="Why the case is listed, in words, as a search hit's `why`: the signatures it "
        "shares with the log by the first line showing them (`Shares: NET/IB completion error "
        "(line 10); IBV_WC_RETRY_EXC_ERR (line 12).`), the log's rare words it holds, the "
        "components it names beside them (`Context: NCCL.`) and whether it is listed as a case "
        "similar to the first hit."
    )
    like = serializers.CharField(
        allow_null=True,
        help_text="The first hit's id when this case is listed higher as a case like it (its score "
        "raised by how alike the two are; `why` ends `Similar to IL-0450, the first hit.`); null otherwise.",
    )
    matched_lines = MatchedLineSerializer(
        many=True,
        help_text="Each matched line once with all the terms it matched, in line order (as MCP "
        "match_log's `matched_lines`); the same lines as `lines`, without the spans. Earlier "
        "versions gave one entry per (line, term), with `term`.",
    )
    lines = LogLineSerializer(
        many=True,
        help_text="Each distinct matched line once (at its first number), in line order, with the "
        "spans to highlight.",
    )


class LogReadingSerializer(ResponseSerializer):
    """What was read of the log: `lines_with_signature` + `lines_context` + `lines_ignored`
    + `lines_repeated` + `lines_blank` = `lines_read`, and every line a result lists is a
    signature or a context line (a result lists each distinct line once)."""

    lines_read = serializers.IntegerField(help_text="Lines in the text.")
    lines_with_signature = serializers.IntegerField(
        help_text="Distinct lines with a known signature (a component's name alone is not one)."
    )
    lines_context = serializers.IntegerField(
        help_text="Distinct lines with no signature that a result lists all the same: it shares a "
        "component's name, a rare word or a version with them (weight, never a match by itself)."
    )
    lines_ignored = serializers.IntegerField(
        help_text="Distinct non-blank lines with no signature that no result lists."
    )
    lines_repeated = serializers.IntegerField(help_text="Lines repeating an earlier one (read once).")
    lines_blank = serializers.IntegerField(help_text="Blank lines.")
    job_kind = serializers.CharField(
        allow_null=True, help_text="`training` or `inference` when the log says which, else null."
    )


class MatchResponseSerializer(ResponseSerializer):
    """Cases ranked by what the log text contains."""

    results = LogHitSerializer(
        many=True, help_text="Best match first; empty when nothing in the text is recognised."
    )
    reading = LogReadingSerializer(help_text="How many lines were read, matched and ignored.")
    error_codes = FoundErrorCodeSerializer(
        many=True,
        help_text="Error codes whose patterns match lines of the text, by vendor then name, "
        "whether or not a case carries them; cases carrying one rank higher.",
    )
