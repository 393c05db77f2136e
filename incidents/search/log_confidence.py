"""How sure a log hit is (strong / possible / weak): `confidence` reads the evidence a case
shares with the log (`Shared`), counted once per signature (`specific_units`,
`names_the_failure`), against thresholds chosen on the tuning logs (`log_thresholds.py`).
The ranking's weights (`log_scores`) never enter it: code names and rare words reorder the
hits, not their labels.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from incidents.models import Facet

from .log_thresholds import THRESHOLDS, Thresholds
from .log_tokens import BOILERPLATE, NAMING_EXTRACTORS
from .results import CONFIDENCE_ORDER, CONFIDENCE_RANK, Confidence

POSSIBLE_SIGNATURE = 2.0


@dataclass(frozen=True)
class Shared:
    """One piece of evidence a case shares with the log, as `confidence` weighs it."""

    name: str
    # `token:<extractor>` (`token:xid`, `token:exception`, `token:identifier`, ...),
    # `pattern:<facet>` for a term found by one of its own patterns, `name:<facet>` for a
    # term found by its name or a synonym, `version:affected` for a component version the
    # log prints inside one of the case's affected ranges.
    kind: str
    cases: int  # published cases that share it
    # Where the log shows it: (line number, start, end) of each match in its lines (`log_hits.places_of`);
    # empty when its words are not found as written (an errno read from its number). Evidence
    # at a place stronger evidence already holds is that signature again (`_counted`).
    places: tuple[tuple[int, int, int], ...] = ()
    # For a symptom term: how many symptoms the case lists (0 when not known). A case listing
    # many is a survey of many failures (`Thresholds.survey_symptoms`).
    listed: int = 0


def _unit(item: Shared, total: int, thresholds: Thresholds) -> tuple[int, bool]:
    """(units, whether it names the failure) of one piece of shared evidence; see
    `specific_units`. Code names and environment variables count but do not name a failure:
    two logs of the same program share them whatever went wrong."""
    how, _, what = item.kind.partition(":")
    if how == "token":
        if item.name.lower() in BOILERPLATE or what == "setting":
            return 0, False
        if what in NAMING_EXTRACTORS:
            return 1, False
        return (1 if item.cases > thresholds.common_token * total else 2), True
    if what == Facet.SYMPTOM and item.listed > thresholds.survey_symptoms:
        return 0, False  # one of the many failures a survey lists
    if what in (Facet.SYMPTOM, Facet.ROOT_CAUSE) and item.cases <= thresholds.generic_term * total:
        return 1, True
    if what == Facet.ERROR_CODE:
        return 1, True  # a code the case carries, found by its own patterns: as a specific symptom
    if how == "version":
        return 1, False  # the failure is known on this version: the case may apply
    return 0, False


def _free_lines(places: tuple[tuple[int, int, int], ...], held: dict[int, list[tuple[int, int]]]) -> set[int]:
    """The lines where a piece at `places` shares no place with the pieces `held` (line
    number -> their spans there): each place compared with the spans of its own line only."""
    taken = {n for n, start, end in places if any(start < b and a < end for a, b in held.get(n, ()))}
    return {n for n, _, _ in places} - taken


@functools.lru_cache(maxsize=32)  # confidence asks twice per hit (specific_units, names_the_failure)
def _counted(shared: tuple[Shared, ...], total: int, thresholds: Thresholds) -> list[tuple[int, bool]]:
    """(units, names the failure) of each piece of `shared` that counts for confidence, once
    per signature: the pieces are taken strongest first (most units, then one naming the
    failure, then in order), and a piece that shares a place (`Shared.places`: a span of a
    line) with a piece taken before is that signature again on that line. It counts only
    when it shows on some other line on its own. A code and its own phrase on one line (the
    watchdog's `Watchdog caught collective operation timeout`, both a failure token and the
    ProcessGroupNCCL code's pattern, and its `WorkNCCL(...Timeout(ms)...)` after it) are one
    signature; `Xid 79` and `fallen off the bus` on one line, two places, are two; so is the
    code on its next line (`Some NCCL operations have failed or timed out`). A piece with no
    place (its words not found as written) counts as before. Pieces that count for nothing
    hold no place."""
    units = sorted(
        ((*_unit(item, total, thresholds), index) for index, item in enumerate(shared)),
        key=lambda u: (-u[0], not u[1], u[2]),
    )
    held: dict[int, list[tuple[int, int]]] = {}
    counted = []
    for n, failure, index in units:
        places = shared[index].places
        if n == 0 or (places and not _free_lines(places, held)):
            continue
        for number, start, end in places:
            held.setdefault(number, []).append((start, end))
        counted.append((n, failure))
    return counted


def specific_units(shared: tuple[Shared, ...], total: int, thresholds: Thresholds = THRESHOLDS) -> int:
    """How specifically the evidence a case shares with a log names one failure.

    2 for a failure token (error code, NCCL result, CUDA error, exception type, errno or
    signal name, error phrase) in few cases, 1 when it is in many (`timed out`); 1 for a
    code name (`save_checkpoint`, `distributed_c10d`), an environment variable, an error code
    the case carries found by its patterns, or a symptom or root cause that is not on most
    cases; 0 for boilerplate (`BOILERPLATE`), a setting
    the log echoes (`enforce_eager=False`), a generic symptom (Training job failure), a
    symptom of a case that lists more than `thresholds.survey_symptoms` (a census of a
    platform's incidents shares `Out of memory` and `NCCL timeout` with most failure logs)
    and any component (NCCL, PyTorch, vLLM: context, not a failure). Evidence at a place
    that stronger evidence holds counts nothing more (`_counted`).
    """
    return sum(n for n, _ in _counted(shared, total, thresholds))


def names_the_failure(shared: tuple[Shared, ...], total: int, thresholds: Thresholds = THRESHOLDS) -> bool:
    """Whether at least two pieces of the shared evidence count (`specific_units`) and one
    of them names the failure (a failure token, an error code, a specific symptom or root
    cause), not only code names: one rare token alone is a coincidence as often as not (an
    exception type one unrelated case quotes), and `output_dir` with `save_checkpoint` says
    the same program ran, not that it failed the same way. Two pieces at one place of the
    log (a code and its own phrase) are one (`_counted`).

    And the failure named by more than one common word of its kind: by a piece that few
    cases share (`thresholds.common_token`: a rare error token, or a code, symptom or root
    cause on few cases; found at a place another piece holds, it still says which failure
    that signature is), or by two pieces at different places. One common failure word
    (`NCCL error`, `timed out`, `Loss spike`) beside a code name (`all_reduce_perf`,
    `grad_norm`) is what any log of that kind of failure shares with any case of it: on the
    tuning logs (eval/logs.json) that made 8 of the 36 hits that are not relevant but had
    the evidence of a strong one (all but their score against the best hit's), one of them
    labelled strong, and none of the relevant ones."""
    counted = _counted(shared, total, thresholds)
    if len(counted) < 2 or not any(failure for _, failure in counted):
        return False
    named = sum(1 for _, failure in counted if failure)
    return named >= 2 or any(
        _unit(item, total, thresholds)[1] and item.cases <= thresholds.common_token * total for item in shared
    )


def confidence(
    signature: float,
    signatures: int,
    score: float,
    top: float,
    *,
    shared: tuple[Shared, ...] = (),
    total: int = 1,
    thresholds: Thresholds = THRESHOLDS,
) -> Confidence:
    """strong / possible / weak for a log hit (`Thresholds` chosen on the tuning logs,
    eval/logs.json, with and without a matching case: `eval/calibrate.py --logs`).

    strong needs at least two signatures (error codes, tokens, symptom or root-cause terms,
    components found by their own patterns; never a bare component name) weighing
    `thresholds.signature`, a score close to the best hit's, and evidence that names the
    failure specifically (`specific_units` of the `shared` evidence reaching
    `thresholds.specific`, from two pieces of which one names the failure, by a piece few
    cases share or by two pieces, `names_the_failure`): a rare error token with a code name
    or a specific symptom, or two specific symptoms; not code names alone, nor one common
    failure word beside them.
    Boilerplate (torchrun's ChildFailedError, the CUDA_LAUNCH_BLOCKING hint), the settings
    a log echoes, a generic symptom, a survey's symptoms (`Thresholds.survey_symptoms`) or
    component names fit many unrelated logs: possible at most. So does the NCCL watchdog's
    timeout alone, what any hang ends in: its code, `NCCL timeout` and `timed out` weigh
    7 to 8 at 173 cases, under `thresholds.signature` unless more of the case shows.
    """
    if (
        specific_units(shared, total, thresholds) >= thresholds.specific
        and names_the_failure(shared, total, thresholds)
        and signatures >= 2
        and signature >= thresholds.signature
        and score >= thresholds.share_of_top * top
    ):
        return "strong"
    if signature >= POSSIBLE_SIGNATURE:
        return "possible"
    return "weak"


def shared_weight(weight: float, kind_factor: float) -> float:
    """What a case shares with the log as its label compares it with the best hit's
    (`Thresholds.share_of_top`): the `weight` of its signatures and context, lowered only
    when the case is of a kind of job the log does not show (`log_job_kind.KIND_MISMATCH`: the log says
    something against it). The rare words it shares are not in `weight`: they reorder the
    hits but never make one strong. The factors that only order cases of equal evidence are
    left out too: the job kind a case matches (a case whose workload is not recorded is not less
    of a match) and the semantic score of the log's lines. Read with them, IL-0485
    (workload not recorded) was "possible" and IL-0450 (training) "strong" for an
    InfiniBand training log of which each shares the same two error codes and their lines
    (a new user's walkthrough)."""
    return weight * min(kind_factor, 1.0)


def head_labels(labels: Iterable[Confidence]) -> list[Confidence]:
    """The labels of hits best first (`confidence` of each), each at most the label of the
    hit above it: a strong one below a hit that is not strong made possible, a possible one
    below a weak hit made weak. The order is the answer; a label never says a lower hit is
    surer than a higher one."""
    # The rare words a case shares add to its score, not to its label, and a possible hit
    # ranked above a strong one (the list saying "this one" of a case it calls less
    # certain). Moving strong hits up instead put a wrong strong case above the right
    # possible one (two of the tuning logs, eval/logs.json). Likewise a first hit found by
    # the log's rare words is weak while cases sharing only a generic failure phrase
    # ("timed out") below it were possible.
    shown: list[Confidence] = []
    least_sure = 0  # the rank (`CONFIDENCE_RANK`) of the least sure label so far
    for label in labels:
        least_sure = max(least_sure, CONFIDENCE_RANK[label])
        shown.append(CONFIDENCE_ORDER[least_sure])
    return shown
