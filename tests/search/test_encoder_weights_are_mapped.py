"""The encoder's weights are extracted once into the embedding cache folder and memory-mapped
from there: every tensor is read in place (the model multiplies by views of the mapped
file, so workers share its pages rather than each holding a copy), the values are the
package's own, and a damaged file is extracted again rather than trusted or left to break
the encoder."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
from safetensors.numpy import load

from incidents.search import encoder


@pytest.fixture
def cache_folder(settings, tmp_path, monkeypatch):
    settings.EMBEDDING_CACHE_DIR = str(tmp_path)
    monkeypatch.setattr(encoder, "_loaded", None)
    return tmp_path / encoder.MODEL_NAME


def zipped_weights() -> dict[str, np.ndarray]:
    with zipfile.ZipFile(encoder._zip_path()) as archive:
        return dict(load(archive.read("model.safetensors")).items())


def test_the_weights_are_the_packages_and_every_tensor_stays_in_the_file(cache_folder):
    weights = encoder._weights()
    [extracted] = cache_folder.glob("model-*.safetensors")
    assert extracted.name == f"model-{encoder.WEIGHTS_SHA256[:16]}.safetensors"
    table = weights["embeddings.word_embeddings.weight"]
    assert isinstance(table, np.memmap) and table.shape == (30522, encoder.DIMENSIONS)
    assert all(isinstance(tensor, np.memmap) and not tensor.flags.writeable for tensor in weights.values())
    expected = zipped_weights()
    assert sorted(weights) == sorted(expected)
    for name, values in expected.items():
        assert weights[name].dtype == values.dtype and np.array_equal(weights[name], values), name


def test_vectors_are_those_of_the_weights_read_from_the_zip(cache_folder, settings):
    texts = ["NCCL watchdog timeout after 30 minutes", "checkpoint save stalls on Lustre"]
    mapped = encoder._model().forward(texts)
    settings.EMBEDDING_CACHE_DIR = ""  # no cache folder: the weights are read from the zip
    encoder._loaded = None
    model = encoder._model()
    in_memory = model.forward(texts)
    assert not isinstance(model.w["embeddings.word_embeddings.weight"], np.memmap)
    assert np.array_equal(mapped, in_memory)
    assert float(mapped[0] @ mapped[1]) < 0.9


def test_a_damaged_weights_file_is_extracted_again(cache_folder):
    encoder._weights()
    [extracted] = cache_folder.glob("model-*.safetensors")
    data = bytearray(extracted.read_bytes())
    data[-1] ^= 0xFF
    extracted.write_bytes(bytes(data))
    weights = encoder._weights()
    assert extracted.read_bytes()[-1] != data[-1]
    expected = zipped_weights()
    assert all(np.array_equal(weights[name], values) for name, values in expected.items())


def test_the_model_multiplies_by_the_mapped_layers_without_copying_them(cache_folder):
    model = encoder._model()
    query = model.w["encoder.layer.0.attention.self.query.weight"]
    # A transposed view of the file's matrix (384 x 384, stored as out x in): no copy.
    assert isinstance(query, np.memmap) and not query.flags.owndata and query.flags.f_contiguous
    stored = zipped_weights()["encoder.layer.0.attention.self.query.weight"]
    assert np.array_equal(query, stored.T)
    # Every linear layer, and everything else the model reads, is a page of the file.
    assert all(isinstance(tensor, np.memmap) for tensor in model.w.values())
