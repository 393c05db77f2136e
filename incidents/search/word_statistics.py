"""Document frequencies of the profiles' words, kept as profiles are stored.

Similar cases and the duplicate check weigh a word by its rarity, `log(N / df)` over the
published cases (`word_vectors.py`). Computing df means reading every published profile:
at 100,000 cases most of the cost of importing ten more. `WordStatistic` keeps, for each
stemmed word, how many published cases hold it in their account (`Profile.counts`) and in
their whole text (`counts` and `context`), with N in the row of the empty word; an increment
into a large library reads only the rows of the words it weighs (`read`).

Kept by the writers of profiles: `profiles.refresh` takes out what a case's previous row
counted and adds the new one when the case is published (`CaseProfile.counted` says which
rows are in), `forget` takes out cases about to be deleted. A change made another way
(a case deleted in the admin, an SQL edit) makes the statistics disagree with the profiles;
`consistent` tells, and readers then fall back to reading every profile, as do stores
below `settings.WORD_STATISTICS_FROM` published cases (where that read is cheap and exact).
`recount` (`manage.py rebuild_search`) starts them again from the stored rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import orjson
from django.conf import settings
from django.db.models import TextField
from django.db.models.functions import Cast

from incidents.id_lists import ids_subquery
from incidents.models import Case

from .models import CaseProfile, WordStatistic

TOTAL = ""  # the word of the row holding N, the number of profiles counted
# Words per statement reading or writing rows (SQLite allows 32,766 parameters).
BATCH = 5000


@dataclass(frozen=True)
class Statistics:
    """N and the document frequencies of some words (a word missing is in no case)."""

    total: int
    accounts: Mapping[str, int]  # word -> published cases whose account holds it
    texts: Mapping[str, int]  # word -> published cases whose whole text holds it


class Tally:
    """Changes to the statistics, added up in memory and written once (`save`)."""

    def __init__(self) -> None:
        self.accounts: Counter[str] = Counter()
        self.texts: Counter[str] = Counter()
        self.total = 0

    def add(self, counts: Iterable[str], context: Iterable[str], sign: int = 1) -> None:
        """Count one profile's words (`sign` -1: take them out): its account `counts` and the
        rest of its text `context` (word collections; each word counts once a case)."""
        account = set(counts)
        whole = account.union(context)
        if sign > 0:
            self.accounts.update(account)
            self.texts.update(whole)
        else:
            self.accounts.subtract(account)
            self.texts.subtract(whole)
        self.total += sign

    def save(self) -> None:
        """Add the tallied changes to the stored rows. Queries: per `BATCH` words touched,
        one read and one upsert, and one delete of the words no case holds any more."""
        self.accounts[TOTAL] += self.total
        self.texts[TOTAL] += self.total
        words = sorted(
            w for w in self.texts.keys() | self.accounts.keys() if self.texts[w] or self.accounts[w]
        )
        for start in range(0, len(words), BATCH):
            batch = words[start : start + BATCH]
            stored = {
                word: (accounts, texts)
                for word, accounts, texts in WordStatistic.objects.filter(word__in=batch).values_list(
                    "word", "accounts", "texts"
                )
            }
            rows, gone = [], []
            for word in batch:
                accounts, texts = stored.get(word, (0, 0))
                accounts, texts = accounts + self.accounts[word], texts + self.texts[word]
                if texts <= 0 and word != TOTAL:
                    gone.append(word)
                else:
                    rows.append(WordStatistic(word=word, accounts=max(accounts, 0), texts=max(texts, 0)))
            WordStatistic.objects.bulk_create(
                rows, update_conflicts=True, unique_fields=["word"], update_fields=["accounts", "texts"]
            )
            WordStatistic.objects.filter(word__in=gone).delete()
        self.__init__()  # type: ignore[misc]  # written: nothing left to add


def forget(case_ids: Iterable[str]) -> None:
    """Take the counted profiles of `case_ids` out of the statistics and mark them
    uncounted: call before deleting the cases (their profile rows go with them).
    Queries: per `profiles.BATCH` ids one read and one update, then `Tally.save`'s."""
    ids = sorted(set(case_ids))
    tally = Tally()
    for start in range(0, len(ids), BATCH):
        rows = counted_rows(CaseProfile.objects.filter(case_id__in=ids[start : start + BATCH], counted=True))
        for counts, context in rows.values():
            tally.add(counts, context, sign=-1)
        CaseProfile.objects.filter(case_id__in=list(rows)).update(counted=False)
    tally.save()


def counted_rows(rows) -> dict[str, tuple[dict, dict]]:
    """Case id -> (account counts, context counts) of the profile rows `rows` selects (one
    query; the JSON decoded by orjson, as `profiles._stored` reads it)."""
    found = {}
    texts = rows.annotate(
        counts_text=Cast("counts", TextField()), context_text=Cast("context_counts", TextField())
    ).values_list("case_id", "counts_text", "context_text")
    for case_id, counts, context in texts:
        found[case_id] = (orjson.loads(counts), orjson.loads(context) if context is not None else {})
    return found


def recount() -> int:
    """Count every published case's stored profile again from scratch (the others marked
    uncounted). Returns N. Queries: a delete, two updates, per `BATCH` rows one read, then
    `Tally.save`'s."""
    WordStatistic.objects.all().delete()
    CaseProfile.objects.update(counted=False)
    published = CaseProfile.objects.filter(case__status=Case.Status.PUBLISHED)
    tally = Tally()
    ids = sorted(published.values_list("case_id", flat=True))
    for start in range(0, len(ids), BATCH):
        for counts, context in counted_rows(
            CaseProfile.objects.filter(case_id__in=ids[start : start + BATCH])
        ).values():
            tally.add(counts, context)
    published.update(counted=True)
    total = tally.total
    tally.save()
    return total


def read(words: Iterable[str]) -> Statistics:
    """N and the document frequencies of `words`. Queries: one per `BATCH` words (each list
    one parameter, `id_lists.ids_subquery`: a placeholder per word made Django prepare each
    of thousands of words, a fifth of an increment's reading at 100,000 cases)."""
    wanted = sorted({*words, TOTAL})
    accounts: dict[str, int] = {}
    texts: dict[str, int] = {}
    for start in range(0, len(wanted), BATCH):
        for word, in_accounts, in_texts in WordStatistic.objects.filter(
            word__in=ids_subquery(wanted[start : start + BATCH])
        ).values_list("word", "accounts", "texts"):
            accounts[word], texts[word] = in_accounts, in_texts
    total = texts.pop(TOTAL, 0)
    accounts.pop(TOTAL, None)
    return Statistics(total=total, accounts=accounts, texts=texts)


def consistent(published: int | None = None) -> bool:
    """Whether the statistics count as many profiles as there are published cases: a case
    published, unpublished or deleted outside the services (`refresh`, `forget`) makes them
    disagree. `published`: the number of published cases, when the caller counted them.
    Queries: 2 (1 with `published`), both by an index."""
    if published is None:
        published = Case.objects.published().order_by().count()
    return WordStatistic.objects.filter(word=TOTAL).values_list("texts", flat=True).first() == published


def in_use(changing: int = 0, per_case: int = 0) -> bool:
    """Whether an increment of `changing` cases, reading up to `per_case` candidate profiles
    each, weighs words from the stored statistics and reads candidates instead of every
    published profile: the library holds more than `settings.WORD_STATISTICS_FROM`
    published cases, the candidates would not outnumber them (a large write scores every
    pair more cheaply, `similarity.update_neighbours`), and the statistics are
    `consistent`. Queries: 2."""
    published = Case.objects.published().order_by().count()
    reading = changing * min(per_case, published)
    return published > settings.WORD_STATISTICS_FROM and reading <= published and consistent(published)
