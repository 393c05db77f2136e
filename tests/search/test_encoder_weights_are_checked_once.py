"""The weights file's checksum is read once per file, not once per process: the verdict is
kept in a stamp beside it with the file's path, size, mtime_ns and inode, and a file whose
four differ from the stamp's is checked again before use, and extracted again from the
package when it does not match."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from incidents.search import encoder


@pytest.fixture
def cache_folder(settings, tmp_path, monkeypatch):
    settings.EMBEDDING_CACHE_DIR = str(tmp_path / "cache")
    monkeypatch.setattr(encoder, "_loaded", None)
    return tmp_path / "cache" / encoder.MODEL_NAME


@pytest.fixture
def reads(monkeypatch):
    """The files whose whole content is hashed (`hashlib.file_digest`), in order."""
    read: list[str] = []
    real = hashlib.file_digest

    def counted(handle, digest):
        read.append(os.path.basename(handle.name))
        return real(handle, digest)

    monkeypatch.setattr(hashlib, "file_digest", counted)
    return read


def stamp_of(folder) -> dict:
    return json.loads((folder / f"model-{encoder.WEIGHTS_SHA256[:16]}.verified").read_text())


def sha256_of(path) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


WEIGHTS = f"model-{encoder.WEIGHTS_SHA256[:16]}.safetensors"


def extracted() -> Path:
    """The weights file, extracted and stamped the first time."""
    path = encoder._weights_file()
    assert path is not None
    return path


def test_the_extracted_file_is_stamped_and_not_read_again(cache_folder, reads):
    path = extracted()
    assert path == cache_folder / WEIGHTS
    stat = path.stat()
    assert stamp_of(cache_folder) == {
        "path": str(path.resolve()),
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "inode": stat.st_ino,
        "sha256": encoder.WEIGHTS_SHA256,
    }
    assert reads == []  # its digest was computed as it was extracted
    for _ in range(3):  # as three later processes would
        assert encoder._weights_file() == path
    assert reads == []
    assert sorted(p.name for p in cache_folder.iterdir()) == [
        WEIGHTS,
        f"model-{encoder.WEIGHTS_SHA256[:16]}.verified",
    ]


def test_a_file_changed_in_place_is_checked_again_and_refused(cache_folder, reads):
    path = extracted()
    before = path.stat()
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))  # same size, same inode
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert encoder._weights_file() == path
    assert reads == [WEIGHTS]  # checked again, found wrong, extracted again
    after = path.stat()
    assert after.st_ino != before.st_ino and sha256_of(path) == encoder.WEIGHTS_SHA256
    assert stamp_of(cache_folder)["inode"] == after.st_ino
    assert stamp_of(cache_folder)["mtime_ns"] == after.st_mtime_ns
    encoder._weights_file()
    assert reads == [WEIGHTS]  # the new file is stamped


def test_a_file_replaced_with_the_same_size_and_time_is_checked_again(cache_folder, reads):
    path = extracted()
    before = path.stat()
    data = bytearray(path.read_bytes())
    data[100] ^= 0x01
    other = path.with_name("other")
    other.write_bytes(bytes(data))
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, path)  # only the inode tells it from the stamped file
    assert encoder._weights_file() == path
    assert reads == [WEIGHTS]
    assert sha256_of(path) == encoder.WEIGHTS_SHA256


def test_a_touched_or_moved_file_that_still_matches_is_kept(cache_folder, reads, settings, tmp_path):
    path = extracted()
    inode = path.stat().st_ino
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))
    assert encoder._weights_file() == path
    assert reads == [WEIGHTS] and path.stat().st_ino == inode  # read, matched, not extracted
    assert stamp_of(cache_folder)["mtime_ns"] == path.stat().st_mtime_ns
    moved = tmp_path / "moved"
    shutil.move(tmp_path / "cache", moved)  # the stamp comes along, naming the old path
    settings.EMBEDDING_CACHE_DIR = str(moved)
    assert encoder._weights_file() == moved / encoder.MODEL_NAME / WEIGHTS
    assert reads == [WEIGHTS, WEIGHTS]
    assert stamp_of(moved / encoder.MODEL_NAME)["path"] == str(
        (moved / encoder.MODEL_NAME / WEIGHTS).resolve()
    )


def test_a_damaged_stamp_means_the_file_is_read(cache_folder, reads):
    path = extracted()
    (cache_folder / f"model-{encoder.WEIGHTS_SHA256[:16]}.verified").write_text("{not json")
    assert encoder._weights_file() == path
    assert reads == [WEIGHTS]
    assert stamp_of(cache_folder)["inode"] == path.stat().st_ino


def test_a_file_that_does_not_match_and_a_package_that_does_not_either_are_refused(
    cache_folder, reads, monkeypatch
):
    path = extracted()
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
    # The package's zip read as damaged too: nothing that matches the checksum is left.
    monkeypatch.setattr(encoder, "WEIGHTS_SHA256", encoder.WEIGHTS_SHA256[:16] + "0" * 48)
    with pytest.raises(encoder.EncoderUnavailable, match="does not match its checksum"):
        encoder._weights_file()
    assert not list(cache_folder.glob("*.tmp"))
