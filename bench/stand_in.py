"""Stand-in passage embeddings for the synthetic cases of `make bench`.

Encoding with the real model costs tens of milliseconds a passage on this machine, so a
10,000-case import would spend most of an hour in the encoder and say nothing about how the
store, search and neighbours scale. The bench therefore writes, before importing, the
encoder's own disk cache (`EMBEDDING_CACHE_DIR`, one float32 file per passage text) with a
cheap vector for every synthetic passage: a random projection of its words (each word a
fixed pseudo-random unit vector, summed and normalised), so passages sharing words are
close, as with the model. The import then stores N real-sized vectors and every read path
(search, similar cases, neighbours) does its full work; only the model call is skipped.
The model's own cost is measured apart (`encoder_rate`) and reported next to the import.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np


def _word_vector(word: str, dimensions: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
    return np.random.default_rng(seed).standard_normal(dimensions).astype(np.float32)


def passage_texts(document: dict) -> list[str]:
    """The passages of a case document as `semantic.passages` reads them from the stored case."""
    from incidents.search.semantic import passages

    root = document["root_cause"]
    case = SimpleNamespace(
        title=document["title"],
        summary=document["summary"],
        symptoms_description=document["symptoms"]["description"],
        root_cause_description=root.get("description"),
        root_cause_trigger=root.get("trigger"),
        remediation=document["remediation"],
    )
    return passages(case)  # type: ignore[arg-type]  # duck-typed: only these fields are read


def seed_cache(documents: list[dict], folder: Path) -> int:
    """Write stand-in vectors for every passage of `documents` into the encoder cache at
    `folder` (skipping those present). Returns the number of files written."""
    from incidents.search import encoder

    target = folder / encoder.MODEL_NAME
    target.mkdir(parents=True, exist_ok=True)
    words: dict[str, np.ndarray] = {}
    written = 0
    for document in documents:
        for text in passage_texts(document):
            prepared = encoder.prepare(text)
            if not prepared:
                continue
            path = encoder._cache_file(target, prepared)
            if path.exists():
                continue
            vector = np.zeros(encoder.DIMENSIONS, dtype=np.float32)
            for word in prepared.lower().split():
                if word not in words:
                    words[word] = _word_vector(word, encoder.DIMENSIONS)
                vector += words[word]
            vector /= max(float(np.linalg.norm(vector)), 1e-12)
            path.write_bytes(vector.astype(np.float32).tobytes())
            written += 1
    return written


def encoder_rate(documents: list[dict]) -> dict[str, float]:
    """The real model's cost on these documents' passages (no cache): passages per second and
    milliseconds per case, measured in this process on one BLAS thread as the server runs."""
    from django.test import override_settings

    from incidents.search import encoder

    texts = [f"{t} ({n})" for n, d in enumerate(documents) for t in passage_texts(d) if t]
    encoder._memo.clear()
    with override_settings(EMBEDDING_CACHE_DIR=""):
        encoder.encode(["loads the model first: its start is paid once per process"])
    started = time.perf_counter()
    with override_settings(EMBEDDING_CACHE_DIR=""):
        encoder.encode(texts)
    seconds = time.perf_counter() - started
    return {
        "passages": len(texts),
        "seconds": round(seconds, 2),
        "passages_per_second": round(len(texts) / seconds, 1),
        "ms_per_case": round(seconds / len(documents) * 1000, 1),
    }
