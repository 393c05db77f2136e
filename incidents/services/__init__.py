"""Writes to the case store. Import is all-or-nothing: validate everything, then write in
one transaction; any problem raises `CaseImportError` and leaves the database untouched.

- `importing`: `import_case_files`, reading, validating and writing case files all or nothing;
- `results`: `ImportResult`, what an import did;
- `preparing`: `Preparer`, import's normalisation of a document, and the import plan;
- `writing`: `write_documents`, the one write of case documents, and `refresh_derived`;
- `definitions`: the vocabulary definitions an import writes (`changed_definitions`);
- `aliases`: organization and accelerator links (`Resolver`, `relink_aliases`);
- `positions`: where each kind of a case's term rows starts;
- `editing`: one document saved as import saves it (`save_case_document`), `next_case_id`,
  `writing_cases`;
- `status`: workflow writes (`change_status`, `note_in_history`);
- `merging`: `merge_cases`;
- `terms`: hand edits of a term (`save_term`) and `rederive_error_code`;
- `recording`: history of the documents a vocabulary change rewrote;
- `deleting`: `delete_cases`.
"""

from .aliases import Resolver, relink_aliases
from .definitions import changed_definitions
from .deleting import delete_cases
from .editing import SaveResult, next_case_id, save_case_document, validate_document, writing_cases
from .importing import import_case_files
from .merging import merge_cases
from .positions import ALIAS_POSITION, CODE_POSITION
from .preparing import Preparer
from .results import ImportResult
from .status import change_status, note_in_history
from .terms import rederive_error_code, save_term
from .writing import WRITE_BATCH, refresh_derived, write_documents

__all__ = [
    "ALIAS_POSITION",
    "CODE_POSITION",
    "WRITE_BATCH",
    "ImportResult",
    "Preparer",
    "Resolver",
    "SaveResult",
    "change_status",
    "changed_definitions",
    "delete_cases",
    "import_case_files",
    "merge_cases",
    "next_case_id",
    "note_in_history",
    "rederive_error_code",
    "refresh_derived",
    "relink_aliases",
    "save_case_document",
    "save_term",
    "validate_document",
    "write_documents",
    "writing_cases",
]
