"""Signals sent when cases change, so derived data (search index, similar cases) follows.

`cases_written` is sent inside the import transaction (receivers that write derived rows
join the all-or-nothing import); `cases_changed` after commit (caches, notifications).
Both carry `case_ids`: the ids of the cases that were created or replaced.
"""

from django.dispatch import Signal

cases_written = Signal()
cases_changed = Signal()
