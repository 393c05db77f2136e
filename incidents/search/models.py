"""Stored similar-case neighbours (imported by `incidents.models` so the app registers it)."""

from __future__ import annotations

from django.db import models


class CaseNeighbour(models.Model):
    """One computed neighbour of a case, with the parts of its score and its reasons.

    Written by `similarity.update_neighbours` when cases are imported; read by
    `similar_cases` with one indexed query. Hand-made links live in `CaseRelation`.
    """

    case = models.ForeignKey("incidents.Case", on_delete=models.CASCADE, related_name="neighbour_links")
    neighbour = models.ForeignKey("incidents.Case", on_delete=models.CASCADE, related_name="+")
    rank = models.PositiveSmallIntegerField()  # 1 = most similar
    score = models.FloatField()  # 0..1, vocabulary + text
    vocabulary_score = models.FloatField()  # share of the score from shared terms
    text_score = models.FloatField()  # share of the score from shared words
    semantic_score = models.FloatField(default=0.0)  # share from the passage embeddings
    shared_terms = models.JSONField(default=dict)  # facet -> names of shared terms
    shared_words = models.JSONField(default=list)  # distinctive shared words

    class Meta:
        app_label = "incidents"
        ordering = ["case", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["case", "neighbour"], name="caseneighbour_unique_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.case_id} ~ {self.neighbour_id} ({self.score:.3f})"


class CaseEmbedding(models.Model):
    """A case's passage embeddings (`semantic.PASSAGES`), float32 rows of the model's size.

    Written by `semantic.update_embeddings` at import, only for cases whose `digest` (model
    and passage texts) changed (after a first bulk import, by the step that follows it:
    `semantic.encode_missing`); read by `semantic.load_vectors` in one query.
    """

    case = models.OneToOneField(
        "incidents.Case", on_delete=models.CASCADE, primary_key=True, related_name="embedding"
    )
    model = models.CharField(max_length=100)  # e.g. all-MiniLM-L6-v2
    digest = models.CharField(max_length=64)  # sha256 of the model name and passage texts
    passages = models.PositiveSmallIntegerField()  # rows in `vectors`
    vectors = models.BinaryField()  # passages x dimensions float32, little-endian

    class Meta:
        app_label = "incidents"

    def __str__(self) -> str:
        return f"{self.case_id}: {self.passages} passages ({self.model})"


class CaseProfile(models.Model):
    """What similar cases read of one case's text and passages, stored so that scoring new
    cases against the library reads one row per case instead of tokenising every case's
    text and loading every passage vector again (`profiles.py`).

    Written by `profiles.refresh` for the cases an import (or any change through
    `index.cases_written`) touched; the terms are not kept here, they are read from the
    case's term rows.
    """

    case = models.OneToOneField(
        "incidents.Case", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    counts = models.JSONField(default=dict)  # stemmed word -> occurrences in the account
    # The same over the rest of the case (`profiles.context_texts`); null in a row stored
    # before it existed, which readers then compute from the case's text.
    context_counts = models.JSONField(null=True)
    surface = models.JSONField(default=dict)  # stemmed word -> first spelling, when it differs
    embedding = models.BinaryField(null=True)  # unit mean of the passage vectors, float32
    # Its stored neighbour list waits for `manage.py rebuild_search --neighbours` (a first
    # bulk import left it to that step); `similar_cases` computes it on the fly meanwhile.
    neighbours_pending = models.BooleanField(default=False)
    # Its words are counted in `WordStatistic` (it was published when this row was stored).
    counted = models.BooleanField(default=False)
    # Its `hubness.NEAREST` nearest published cases by `embedding`, [[case id, cosine], ...]
    # best first, and the mean of those cosines (`hubness.py`); null for a case that is not
    # published or has no embedding, and until the lists are first computed.
    hub_nearest = models.JSONField(null=True)
    hubness = models.FloatField(null=True)

    class Meta:
        app_label = "incidents"
        indexes = [
            # `deferred.pending()` asks whether any list waits, twice an import: without this
            # it read every profile (0.74 s each time at 100,000 cases on SQLite).
            models.Index(
                fields=["neighbours_pending"],
                condition=models.Q(neighbours_pending=True),
                name="caseprofile_pending",
            ),
            # The library's mean hubness (`hubness.library_centre`) is read from this index
            # alone: the rows themselves hold kilobytes of word counts each.
            models.Index(
                fields=["hubness"],
                condition=models.Q(hubness__isnull=False),
                name="caseprofile_hubness",
            ),
        ]

    def __str__(self) -> str:
        return f"profile of {self.case_id}"


class WordStatistic(models.Model):
    """In how many published cases a stemmed word occurs: the document frequencies of the
    similar-case and duplicate-check word vectors, kept as profiles are stored
    (`word_statistics.py`), so that an increment into a large library weighs its words
    without reading every profile. The row with the empty word holds the number of
    profiles counted (N of the idf)."""

    word = models.TextField(primary_key=True)
    accounts = models.PositiveIntegerField(default=0)  # cases whose account holds it
    texts = models.PositiveIntegerField(default=0)  # cases whose whole text holds it

    class Meta:
        app_label = "incidents"

    def __str__(self) -> str:
        return f"{self.word}: {self.texts} cases ({self.accounts} in the account)"
