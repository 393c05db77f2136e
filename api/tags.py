"""The OpenAPI tags that group the operations in /api/docs/ (Swagger UI): by what a client
does, not by URL segment, which gave 14 one- or two-operation groups and put the index under
"default". The tags' order and descriptions are `SPECTACULAR_SETTINGS["TAGS"]`; an
operation's `extend_schema(tags=...)` still wins."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema

# The first path segment after /api/ -> its tag (`cases` writes are `editing`).
TAG_OF_SEGMENT = {
    "": "cases",
    "cases": "cases",
    "lookup": "cases",
    "export": "cases",
    "changes": "cases",
    "match": "matching",
    "triage": "matching",
    "affected": "matching",
    "topics": "vocabulary",
    "vocab": "vocabulary",
    "codes": "vocabulary",
    "stats": "vocabulary",
    "proposals": "editing",
}


class TaggedAutoSchema(AutoSchema):
    """drf-spectacular's schema, each operation tagged by `TAG_OF_SEGMENT`."""

    def get_tags(self) -> list[str]:
        """The operation's one tag: a case write is `editing`, else its segment's tag."""
        segment = next(iter(self._tokenize_path()), "")
        if segment == "cases" and self.method != "GET":
            return ["editing"]
        return [TAG_OF_SEGMENT.get(segment, segment)]
