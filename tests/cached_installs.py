"""The tools some tests drive that install outside the checkout (``scripts/install-test-*.sh``, cached
under the user's cache folder): where one is, or a skip saying how to install it (a failure on CI).

:data:`USER_ENV` is the environment as the test run started, read at import, before the autouse
fixtures point HOME and XDG_CACHE_HOME at a temp folder: the scripts find their cache through it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
USER_ENV = dict(os.environ)


def cached_install(script: str, what: str) -> Path:
    """The install folder that ``scripts/<script> --installed`` prints; skips (fails on CI) without it."""
    install = REPO / "scripts" / script
    done = subprocess.run(["bash", str(install), "--installed"], capture_output=True, text=True, timeout=60,
                          check=False, env=USER_ENV)
    if done.returncode != 0:
        reason = f"{what} not installed (run scripts/{script}; setup.sh --test does)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return Path(done.stdout.strip().splitlines()[-1])
