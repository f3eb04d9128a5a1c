# Two entry points for a fresh machine (see README): `make demo` and `make test`.
.PHONY: demo test setup bench

demo:
	scripts/setup.sh
	scripts/demo.sh

test:
	scripts/setup.sh --test
	.venv/bin/python -m pytest -q -p no:cacheprovider

setup:
	scripts/setup.sh --test

bench:
	.venv/bin/python bench/run_all.py
