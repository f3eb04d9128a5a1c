"""The files CogniVault ships besides its code: prompt templates and JSON schemas.

They are edited at the repository's top level (``prompts/``, ``vault_schema/``);
the package reaches them as ``cognivault/shipped/prompts`` and
``cognivault/shipped/vault_schema`` (links in a source checkout, real folders
inside a wheel) and reads them with :mod:`importlib.resources`, so a wheel
install, an editable install and a zipped package all find the same files.
Loaders that allow a vault to override a file (``<vault>/.cognivault/prompts/``)
look there first and come here second.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

FOLDERS = ("prompts", "vault_schema")


def shipped(folder: str) -> Traversable:
    """The shipped folder ``folder`` (one of :data:`FOLDERS`)."""
    if folder not in FOLDERS:
        raise KeyError(f"no shipped folder {folder!r}: use one of {', '.join(FOLDERS)}")
    return files(__name__) / folder


def read_shipped(folder: str, name: str) -> str | None:
    """The text of the shipped file ``folder/name``; None when the package lacks it."""
    try:
        return (shipped(folder) / name).read_text("utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
