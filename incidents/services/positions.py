"""Where each kind of a case's term rows starts (`CaseTerm.position`): the document's own
terms first, then its error codes, then the organization and accelerator links.
"""

from __future__ import annotations

# Organization and accelerator links come after the document's own terms; their positions
# start here so that rewriting them never collides with a document's ordered terms.
ALIAS_POSITION = 1000
# Error codes (`symptoms.error_codes`) after the document's other terms, before the aliases.
CODE_POSITION = 500
