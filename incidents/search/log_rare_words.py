"""The words of a pasted log that few cases contain: a third, weaker kind of evidence, for
the ranking only (`confidence` never reads them). What a log says in its own words names
its failure as often as its error codes do.
"""

from __future__ import annotations

import math

from .backends import get_backend
from .log_text import Evidence, evidence_lines
from .query import Atom
from .text import STOP_WORDS, words

# Rare words of the log (`rare_words`): how many distinct words are looked up, the largest
# share of the published cases a word may be in to count, how many of the rarest count, and
# each one's weight (times log(1 + N / n), as a failure token's `log_scores.TOKEN_WEIGHT`), and how many
# a case must share for them to count. Chosen on the tuning logs (eval/logs.json): log MRR@10
# 0.826 -> 0.898, recall@1 0.789 -> 0.868, recall@5 0.829 -> 0.882, no strong hit for a log
# without a case; 60 words looked up lost two of the gained logs; with one word enough,
# recall@5 was 0.908 but a lone shared word outranked cases carrying the log's Xid code.
WORD_LOOKUP = 150
RARE_SHARE = 0.02
RARE_WORDS = 30
WORD_WEIGHT = 0.4
MIN_RARE_WORDS = 2


def rare_words(
    lines: dict[str, list[int]], failure_lines: set[str], signature_lines: set[str], total: int
) -> tuple[dict[str, float], dict[str, list[tuple[str, Evidence]]]]:
    """Case id -> weight of the rare words it shares with the log, and case id -> those
    words with their lines (as reasons are kept).

    What a log says in its own words (`decoupled: True` in a Triton config, `NVLS Bind mem`,
    a package name) names its failure as often as its error codes do, and a plain BM25 over
    the log found such cases when no signature did. The words looked up: at most
    `WORD_LOOKUP` distinct ones (letters only, 4 to 40 of them, no stop words), first from
    the lines naming a failure, then the other signature lines, then the rest of the log
    from its end (where a log tells how it ended). One query (`rare_atom_hits`) keeps those
    in at most `RARE_SHARE` of the published cases; the `RARE_WORDS` rarest count, each
    `WORD_WEIGHT * log(1 + N / n)` for every case containing it, when the case contains at
    least `MIN_RARE_WORDS` of them. Rare words add to the
    ranking score only, never to the signatures that `confidence` reads: a case found by
    words alone is a weak hit.
    """
    ordered = evidence_lines(lines, signature_lines, failure_lines)
    ordered += [line for line in reversed(list(lines)) if line not in signature_lines]
    first_line: dict[str, tuple[str, str]] = {}  # lower-cased word -> (its line, as written)
    read_forms: set[str] = set()
    for line in ordered:
        # A line that differs from one read already only in its digits (a counter, a time,
        # a rank) has the same words of letters only: nothing new to find in it.
        form = line.translate(_DIGITS_AS_ZERO)
        if form in read_forms:
            continue
        read_forms.add(form)
        for word in words(line):
            low = word.lower()
            if 4 <= len(low) <= 40 and low.isalpha() and low not in STOP_WORDS and low not in first_line:
                first_line[low] = (line, word)
        if len(first_line) >= WORD_LOOKUP:
            break
    found = list(first_line)[:WORD_LOOKUP]
    by_word: dict[int, list[str]] = {}
    for case_id, index in get_backend().rare_atom_hits(
        [Atom((w,)) for w in found], max(1, int(RARE_SHARE * total))
    ):
        by_word.setdefault(index, []).append(case_id)
    rare = sorted(by_word.items(), key=lambda kv: (len(kv[1]), found[kv[0]]))[:RARE_WORDS]
    score: dict[str, float] = {}
    reasons: dict[str, list[tuple[str, Evidence]]] = {}
    for index, case_ids in rare:
        weight = WORD_WEIGHT * math.log(1 + total / len(case_ids))
        evidence = Evidence()
        line, written = first_line[found[index]]
        for number in lines[line]:
            evidence.add(number, line)
        for case_id in case_ids:
            score[case_id] = score.get(case_id, 0.0) + weight
            reasons.setdefault(case_id, []).append((written, evidence))
    # One shared rare word is a coincidence as often as not (`opcode` in one unrelated case
    # outranked the case carrying the log's Xid code): a case needs MIN_RARE_WORDS of them.
    kept = {case_id for case_id, shared in reasons.items() if len(shared) >= MIN_RARE_WORDS}
    return (
        {case_id: score[case_id] for case_id in kept},
        {case_id: reasons[case_id] for case_id in kept},
    )


_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")
