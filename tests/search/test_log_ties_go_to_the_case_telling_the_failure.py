"""Cases sharing the same tags and tokens with a log are ordered by how close their text is
to the log's evidence lines (semantic score), not by case id."""

from __future__ import annotations

import pytest

from incidents.search import read_log

pytestmark = pytest.mark.django_db

LOG = (
    'kubelet[2211]: E0412 remote_image.go:119] PullImage "registry.local/team/trainer:77" from image'
    " service failed: rpc error: code = 2 desc = net/http: request canceled\n"
    "kubelet[2211]: pod_workers.go:182] Error syncing pod 91c2 (trainer-worker-3): failed to"
    ' "StartContainer" with ErrImagePull\n'
    'dockerd[1904]: level=error msg="Cancel pulling image because of no progress for 1m0s"\n'
    "$ kubectl get pods\n"
    "NAME                READY   STATUS    RESTARTS   AGE\n"
    "trainer-worker-3    0/1     Pending   0          42m\n"
)


def test_an_image_pull_log_puts_the_image_pull_case_before_others_with_the_same_tags():
    hits = read_log(LOG).hits
    ids = [h.case.id for h in hits]
    assert ids[0] == "IL-0459"  # image pulls cancelled for lack of progress left pods Pending
    first, second = hits[0], hits[1]
    # The same tags (Pods stuck Pending, Kubernetes, Container runtime): a tie the case id
    # broke before; the text about cancelled image pulls now decides it.
    assert (second.case.id, set(second.matched_terms)) == ("IL-0530", set(first.matched_terms))
    assert first.score > second.score
