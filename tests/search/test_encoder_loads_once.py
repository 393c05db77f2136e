"""The sentence encoder is loaded once per process, however many requests ask for it at
the same moment: a worker's first searches arrive together, and each loading its own copy
of the weights took a worker past 1.4 GB and stalled it for tens of seconds under load."""

from __future__ import annotations

import threading

from incidents.search import encoder


def test_concurrent_first_calls_share_one_model(monkeypatch):
    monkeypatch.setattr(encoder, "_loaded", None)
    loads: list[int] = []
    original = encoder._Model.__init__

    def counted(self):
        loads.append(threading.get_ident())
        original(self)

    monkeypatch.setattr(encoder._Model, "__init__", counted)
    start = threading.Barrier(8)
    models: list[object] = []

    def first_call():
        start.wait()
        models.append(encoder._model())

    threads = [threading.Thread(target=first_call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1
    assert len(models) == 8 and all(model is models[0] for model in models)
    vector = encoder._model().forward(["NCCL watchdog timeout"])
    assert vector.shape == (1, encoder.DIMENSIONS)
