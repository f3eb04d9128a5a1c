"""One search request, checked once for every front end.

The language server's ``cognivault/search`` and the companion's ``POST /api/search`` each
keep their own spelling on the wire (``perNote`` in LSP's camelCase, ``per_note`` in the
HTTP API's snake_case) and hand the values to :meth:`SearchRequest.build`, which applies
the same limits to both and raises :class:`~cognivault.errors.CogniVaultError` (the
adapter's one mapping answers it as invalid params or a 400):

- ``query``: a string with something other than spaces, at most :data:`MAX_QUERY_CHARS`;
- ``k``: an integer from 1 to :data:`MAX_K` (200);
- ``mode``: one of :data:`~cognivault.engine.SEARCH_MODES`;
- ``scope``: filters as on the command line (``["folder:Biology", "tag:exam"]``) or an
  object ``{folders, tags, files, properties, study}``; folders and files must be paths
  inside the vault (:func:`parse_scope`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cognivault.engine import SEARCH_MODES
from cognivault.errors import CogniVaultError
from cognivault.index.scope import Scope
from cognivault.vault.guard import inside_vault

if TYPE_CHECKING:
    from cognivault.engine import Engine, SearchResponse

MAX_K = 200  # results per search (a client wanting more pages through scopes instead)
MAX_QUERY_CHARS = 2000


def _invalid(message: str) -> CogniVaultError:
    return CogniVaultError(message, "invalid_request")


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A checked search: what :meth:`cognivault.engine.Engine.search` runs."""

    query: str
    k: int = 10
    mode: str = "hybrid"
    scope: Scope | None = None
    per_note: bool = False

    @classmethod
    def build(cls, vault: Path, query: Any, *, k: Any = 10, mode: Any = "hybrid", scope: Any = None,
              per_note: Any = False) -> SearchRequest:
        """A request from a front end's values (any JSON), or the error that says what is wrong."""
        if not isinstance(query, str):
            raise _invalid("query: a non-empty string is required")
        if not query.strip():
            raise _invalid("the query is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise _invalid(f"query: at most {MAX_QUERY_CHARS} characters")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise _invalid(f"k: expected an integer from 1 to {MAX_K}")
        if mode not in SEARCH_MODES:
            raise _invalid(f"unknown search mode {mode!r}: use one of {', '.join(SEARCH_MODES)}")
        return cls(query, k, mode, parse_scope(vault, scope), bool(per_note))

    def run(self, engine: Engine) -> SearchResponse:
        """Search ``engine`` (blocking: front ends call it off their event loop)."""
        return engine.search(self.query, k=self.k, mode=self.mode, scope=self.scope, per_note=self.per_note)


def parse_scope(vault: Path, raw: Any) -> Scope | None:
    """A scope from a list of filters, one filter, or an object; None when it limits nothing.

    Folders and files of the object form are checked as written (an absolute ``/etc`` is refused,
    not read as ``etc``); those of the filter form after parsing, as the command line reads them.
    Raises ScopeError or VaultPathError (both say which filter is wrong).
    """
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = [raw]
    if isinstance(raw, list):
        if not all(isinstance(item, str) for item in raw):
            raise _invalid("scope: expected filters like \"folder:Biology\" or an object")
        scope = Scope.parse(raw)
        written: dict[str, list[str]] = {"folders": scope.folders, "files": scope.files}
    elif isinstance(raw, dict):
        scope = Scope.from_dict(raw)  # checks the types: folders and files are strings or lists of them
        written = {key: [raw[key]] if isinstance(raw.get(key), str) else raw.get(key) or []
                   for key in ("folders", "files")}
    else:
        raise _invalid("scope: expected a list of filters or an object")
    for key, values in written.items():
        for value in values:
            inside_vault(vault, value, f"scope.{key}")
    return None if scope.is_empty() else scope
