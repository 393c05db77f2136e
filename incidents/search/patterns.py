"""Regular expressions for log matching, run by RE2 so matching is linear in the text.

Python's `re` backtracks: a pattern such as `(a+)+$` takes exponential time on a hostile
line. RE2 (google-re2) runs every pattern as an automaton, in time linear in the input,
and refuses the constructs that need backtracking (backreferences, lookaround). A
vocabulary pattern is accepted only if RE2 compiles it (`pattern_problem`), so no pattern
in the vocabulary can make log matching slow.
"""

from __future__ import annotations

from dataclasses import dataclass

import re2

MAX_PATTERN_LENGTH = 300
_OPTIONS = re2.Options()
_OPTIONS.max_mem = 8 << 20  # bytes of automaton per pattern: a hard bound on size


def options(*, ignore_case: bool = True):
    """RE2 options: bounded memory, no error logging to stderr."""
    result = re2.Options()
    result.max_mem = _OPTIONS.max_mem
    result.log_errors = False
    result.case_sensitive = not ignore_case
    return result


def compile_pattern(pattern: str, *, ignore_case: bool = True):
    """Compile with RE2 (raises `re2.error` for patterns RE2 cannot run in linear time)."""
    return re2.compile(pattern, options(ignore_case=ignore_case))


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` cannot be a vocabulary match pattern, or None if it can.

    Refused: longer than 300 characters; anything RE2 cannot compile, which includes
    backreferences (`\\1`) and lookarounds (`(?=`, `(?<!`); a pattern matching the empty
    string (it would match every line).
    """
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"pattern longer than {MAX_PATTERN_LENGTH} characters"
    try:
        compiled = compile_pattern(pattern)
    except re2.error as exc:
        return f"pattern not accepted by RE2 (linear-time matching): {exc}"
    if compiled.search("") is not None:
        return "pattern matches the empty string"
    return None


@dataclass(frozen=True)
class Extractor:
    """A built-in pattern whose match (or first group) is a failure token to look up."""

    name: str
    pattern: str
    ignore_case: bool = False
    template: str = "{0}"


# Tokens that identify a failure in logs whatever the vocabulary says. Each found token is
# searched in the cases' full text (so `Xid 79` or `NCCL_IB_TIMEOUT` finds the cases that
# mention them). None can match a line break (`[^\S\n]`, not `\s`): they scan a log's lines
# joined into one text (`log_lines.LogLines`), and find there what they find in each line.
EXTRACTORS: tuple[Extractor, ...] = (
    Extractor("xid", r"\bXid\b[^\n]{0,60}?\):[^\S\n]*(\d{1,3})\b", template="Xid {0}"),
    Extractor("xid", r"\bXid[^\S\n]+(\d{1,3})\b", template="Xid {0}"),
    Extractor("nccl-result", r"\b(nccl[A-Z][A-Za-z]+)\b"),
    # NCCL's IB/RoCE transport: `NET/IB : Got completion from peer ... with error 12` (the
    # ibverbs work-completion status; 12 is a transport retry timeout), printed since NCCL
    # 2.18 as `with status=12` and since 2.27 as `with status=IBV_WC_RETRY_EXC_ERR(12)`: all
    # read as `error 12`, as the cases quote it.
    Extractor(
        "ib-completion", r"\bGot completion\b[^\n]{0,80}?\bwith error (\d{1,3})\b", template="error {0}"
    ),
    Extractor(
        "ib-completion",
        r"\bGot completion\b[^\n]{0,80}?\bwith status=(?:[A-Z_]{3,40}\()?(\d{1,3})\b",
        template="error {0}",
    ),
    Extractor("cuda-error-name", r"\b(cudaError[A-Z][A-Za-z]+|CUDA_ERROR_[A-Z_]+)\b"),
    Extractor(
        "cuda-error",
        r"\bCUDA error:[^\S\n]*([a-z][a-z \-]{3,60}[a-z])",
        ignore_case=True,
        template="CUDA error {0}",
    ),
    Extractor("env", r"\b((?:NCCL|CUDA|TORCH|NVIDIA|UCX|FI|OMPI)_[A-Z0-9_]{2,40})\b"),
    Extractor("exception", r"\b([A-Z][A-Za-z0-9]{2,60}(?:Error|Exception|Failure|Timeout))\b"),
    # The C library's symbolic error names (`log_tokens` keeps the words `errnos` knows) and
    # error numbers (`[Errno 28]`, `errno=110`), read as their names (28 is ENOSPC).
    Extractor("errno", r"\b(E[A-Z0-9]{2,14})\b"),
    Extractor("errno-number", r"\b[Ee]rrno\b\]?[^\S\n]*[=:]?[^\S\n]*-?(\d{1,3})\b"),
    Extractor("signal", r"\b(SIGSEGV|SIGBUS|SIGKILL|SIGABRT|SIGTERM)\b"),
    # Identifiers from code and logs: snake_case and camelCase names (function names in
    # stack dumps, kernel modules, flags), which say more about a failure than any word.
    Extractor("identifier", r"\b([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+){1,6})\b"),
    Extractor("identifier", r"\b([a-z][a-z0-9]+(?:[A-Z][a-z0-9]+){1,6}[A-Za-z0-9]*)\b"),
    # What a program says it could not do (`Failed to initialize NVML: Unknown Error`,
    # `cannot allocate memory`): the marker and up to five words, stopping at punctuation,
    # looked up as a phrase. Cases quote such messages, so a rare one finds its case.
    Extractor(
        "message",
        r"\b((?:failed to|unable to|cannot|could not|couldn't|can't) [A-Za-z][A-Za-z0-9_]*"
        r"(?: [A-Za-z][A-Za-z0-9_.-]*){0,3})",
        ignore_case=True,
    ),
    # The message a program prints after `fatal:`, `error:` or `panic:` (`slurmd: fatal:
    # gres.conf duplicate records for gpu`): its first three to five words, looked up as a
    # phrase, since a case quotes the message its failure printed. Exception names
    # (`RuntimeError:`) have no word boundary before `Error` and are the exception's.
    Extractor(
        "error-message",
        r"\b(?:fatal|error|panic)[^\S\n]*:[^\S\n]*([A-Za-z][A-Za-z0-9_.-]*(?: [A-Za-z][A-Za-z0-9_.-]*){2,4})",
        ignore_case=True,
    ),
    # `CUDA out of memory` (PyTorch's GPU allocator) is read whole: the word says whose memory
    # ran out, and a host running out of RAM (`ran out of memory`, the kernel's `Out of
    # memory: Killed process`) or a GPU's ECC fault is another failure.
    Extractor(
        "phrase",
        r"\b(segmentation fault|fallen off the bus|illegal memory access|"
        r"uncorrectable ECC|No space left on device|(?:CUDA )?out of memory|Killed process|"
        r"watchdog caught collective operation timeout|link down|NotReady)\b",
        ignore_case=True,
    ),
    Extractor(
        "phrase",
        r"\b(device-side assert|unhandled system error|remote process exited|"
        r"Connection reset by peer|Connection refused|timed out|row remapping)\b",
        ignore_case=True,
    ),
)

# A source file a log line names, with its line number when given: `proxy.cc:1391`,
# `transport/net_ib.cc`, `ProcessGroupNCCL.cpp:1234`, `distributed_c10d.py:2606`, `all_reduce.cu`.
# It is a place in the program's code (NCCL prints one before every WARN), not a word the
# line says: the `proxy` of NCCL's `proxy.cc` is not the Load balancer the word `proxy`
# names. Only the file's own name: the directories before it (`torch/`, `megatron/`) name the
# package that ran. Lower-case extensions of the languages these programs are written in;
# it cannot match a line break (`log_lines.py`).
SOURCE_FILE_PATTERN = (
    r"\b[\w-]+(?:\.[\w-]+)*\.(?:c|cc|cpp|cxx|h|hh|hpp|cu|cuh|py|pyx|go|rs|java|sh)\b(?::\d+)*"
)
SOURCE_FILE = compile_pattern(SOURCE_FILE_PATTERN, ignore_case=False)
# A host name a line prints (`host : gpu-node-023`, `ip-10-0-1-23.ec2.internal`): lower-case
# labels joined by hyphens, ending in a node number of two digits or more, then its domain.
# It names a machine, not a component: the `gpu` of `gpu-node-023` is no NVIDIA GPU. A
# version is not one (`cuda-12.1` is CUDA 12.1, `nccl-2.18.1` NCCL): RE2 has no look-ahead,
# so the character after the name is part of the match (never a line break, `log_lines.py`),
# and blanked with it, which reads no name out of a space, colon or bracket.
HOST_NAME_PATTERN = r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[0-9]{2,}(?:\.[a-z][a-z0-9-]*)*(?:[^\w.\-\n]|(?m:$))"
HOST_NAME = compile_pattern(HOST_NAME_PATTERN, ignore_case=False)
# Names in a line that are no words it says: source files and host names.
NOT_WORDS = compile_pattern(f"{SOURCE_FILE_PATTERN}|{HOST_NAME_PATTERN}", ignore_case=False)


def source_file_spans(line: str) -> list[tuple[int, int]]:
    """The [start, end) spans of the source-file names (`SOURCE_FILE`) in `line`."""
    return [match.span() for match in SOURCE_FILE.finditer(line)]


def not_word_spans(line: str) -> list[tuple[int, int]]:
    """The [start, end) spans of the names in `line` that are no words it says
    (`NOT_WORDS`: source files and host names), where no term's name or synonym is read."""
    return [match.span() for match in NOT_WORDS.finditer(line)]


def blanked(line: str, spans: list[tuple[int, int]]) -> str:
    """`line` with the characters of `spans` as spaces: the same length, so what is found in
    it is found at the same offsets as in `line`."""
    for start, end in spans:
        line = line[:start] + " " * (end - start) + line[end:]
    return line


def inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    """Whether `span` lies within one of `spans`."""
    return any(start <= span[0] and span[1] <= end for start, end in spans)


# Exception names too common to identify anything.
GENERIC_TOKENS = frozenset(
    {
        "Exception",
        "RuntimeError",
        "ValueError",
        "TypeError",
        "KeyError",
        "Error",
        "AssertionError",
        "OSError",
        "IOError",
        "SystemError",
        "BaseException",
    }
)
# The exception types among them, spelt as printed; `Error` and `Exception` alone are words
# like any other (`error` is in most cases). A query is searched without them beside other
# words (`planning.GENERIC_EXCEPTIONS`), and spelling never corrects one into another word.
GENERIC_EXCEPTION_NAMES = frozenset(t for t in GENERIC_TOKENS if t not in ("Error", "Exception"))
