# Two entry points for a fresh machine (see README): `make demo` and `make test`.
.PHONY: demo test setup bench lint

demo:
	scripts/setup.sh
	scripts/demo.sh

test:
	scripts/setup.sh --test
	$(MAKE) lint
	.venv/bin/python -m pytest -q -p no:cacheprovider

# ruff and mypy as configured in pyproject.toml (mypy is strict on engine, index, vault, answer).
lint:
	.venv/bin/ruff check server tests bench
	.venv/bin/mypy

setup:
	scripts/setup.sh --test

bench:
	.venv/bin/python bench/run_all.py
