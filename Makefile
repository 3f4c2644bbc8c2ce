# The two commands of the README: `make run` and `make test`. Each sets itself up on a fresh clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.test-installed
# On a Raspberry Pi the venv must see Debian's picamera2 (it is not on PyPI), and `make install`
# installs only what runs (no test tools, no Playwright's browser driver): `make test` adds them.
ON_PI ?= $(shell test -e /proc/device-tree/model && echo 1)
VENV_FLAGS := $(if $(ON_PI),--system-site-packages)
EXTRAS := $(if $(ON_PI),,[test])

.PHONY: install run lint test lock clean arm64-check

install: $(STAMP)

# The venv's own pip, not upgraded: any pip since 21.3 installs an editable pyproject, and the
# upgrade was a tenth of a fresh clone's set-up. Off the Pi, the versions come from
# requirements/test.lock, installed by several pips at once (scripts/install-venv.sh: one pip
# spent the set-up on one core).
LOCK := requirements/test.lock

# (off the Pi the script makes the venv too: without pip, filled by $(PYTHON)'s pip where it has
# one, the venv's own pip installed beside the rest)
$(STAMP): pyproject.toml $(LOCK)
	$(if $(ON_PI),$(PYTHON) -m venv $(VENV_FLAGS) $(VENV),PYTHON=$(PYTHON) sh scripts/install-venv.sh $(VENV) $(LOCK))
	$(if $(ON_PI),$(BIN)/pip install --quiet -e '.$(EXTRAS)')
	touch $(STAMP)

# After changing a dependency in pyproject.toml: `make lock` writes both locks afresh.
# - requirements/test.lock: pip resolves the pins in a scratch venv and the lock takes every
#   version it installed (what `make test` installs, scripts/install-venv.sh).
# - requirements/runtime.lock: what runs on the Pi, with the sha256 of every file PyPI has of
#   each version (every platform: the Pi's aarch64 wheels too) and the build backend, for
#   deploy/install.sh's `pip install --require-hashes`. pip-tools' pip-compile makes it, from a
#   venv of its own (its own dependencies stay out of the test lock).
RUNTIME_LOCK := requirements/runtime.lock
PIP_TOOLS := pip-tools==7.7.0
lock:
	rm -rf build/lock-venv build/pip-tools-venv
	$(PYTHON) -m venv build/lock-venv
	build/lock-venv/bin/pip install --quiet -e '.[test]'
	mkdir -p requirements
	{ echo "# Every distribution 'make test' installs, at one version each: made by 'make lock' from"; \
	  echo "# pyproject.toml's pins, installed by scripts/install-venv.sh. Do not edit by hand."; \
	  build/lock-venv/bin/pip freeze --exclude-editable; } > $(LOCK)
	$(PYTHON) -m venv build/pip-tools-venv
	build/pip-tools-venv/bin/pip install --quiet '$(PIP_TOOLS)'
	{ echo "# What runs on the Pi, with every file's sha256: made by 'make lock' from pyproject.toml"; \
	  echo "# (pip-compile --generate-hashes), installed by deploy/install.sh with --require-hashes."; \
	  echo "# Do not edit by hand."; \
	  build/pip-tools-venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	    --all-build-deps --no-emit-index-url --no-emit-find-links --no-header -o - pyproject.toml; \
	} > $(RUNTIME_LOCK)
	rm -rf build/lock-venv build/pip-tools-venv

$(TEST_STAMP): $(STAMP)
	$(if $(ON_PI),$(BIN)/pip install --quiet -e '.[test]')
	touch $(TEST_STAMP)

# The real table where a Pi camera is found, else the simulated one on http://$(HOST):8000.
# Phones cannot reach 127.0.0.1: `make run HOST=0.0.0.0` serves the simulated table on the network.
# (:= not ?=: a HOST in the shell's environment, often the machine's name, must not change it.)
HOST := 127.0.0.1
run: install
	@if $(BIN)/python -c 'import sys; from vision.sources import pi_camera_present; sys.exit(not pi_camera_present())'; \
	then $(BIN)/companion run; \
	else echo "No Pi camera found: starting the simulated table."; \
	     $(BIN)/companion demo --host $(HOST) --port 8000; fi

# Every test and doctest (pyproject.toml), on every core and two workers more (pytest-xdist: the
# browser and server tests spend much of their time waiting; on 2 cores 4 workers took 2:37 and
# 2:40 where 3 took 2:43 and 2:46, by turns on one clone), the slow ones handed out first, every
# browser test module (`*_browser.py`) on one worker (tests/conftest.py, through pytest-xdist's
# scheduler hook).
# One file: `.venv/bin/python -m pytest tests/companion/test_bus.py`; no slow ones: `-m "not slow"`.
WORKERS := $(shell echo $$(( $$(nproc) + 2 )))
# Plugins named, not autoloaded: an autoloaded plugin's whole distribution is assert-rewritten in
# every process (all of hypothesis: 6 CPU-s per worker where bytecode is not cached), a named one
# only its own module.
# Bytecode written even where the shell says not to (PYTHONDONTWRITEBYTECODE, set on some CI
# images): the tests start `companion` in a hundred processes, and each compiled every module it
# imported afresh (subprocess-heavy test files took 1.6x the CPU).
PYTEST := PYTHONDONTWRITEBYTECODE= PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 $(BIN)/python -m pytest -p xdist.plugin -p _hypothesis_pytestplugin
# The linter and the type checker (their rules in pyproject.toml: ruff over the whole tree, mypy
# --strict over companion/ and league/), a few seconds; `make test` runs them beside the tests
# (the tests' workers leave a core idle while they wait on browsers and servers), and a new
# finding fails it.
LINT := $(BIN)/ruff check . && $(BIN)/mypy
lint: $(TEST_STAMP)
	$(LINT)

# The tests' temporary folders in the clone (build/pytest-tmp, emptied at the start of each run):
# pytest's default, /tmp/pytest-of-$USER, deletes the oldest run's folders before the first test
# starts, thousands of them, seconds of waiting on a machine that ran the suite before.
# The lint's output is printed after the tests'; either failing fails the target.
test: $(TEST_STAMP)
	sh scripts/install-browser.sh
	sh scripts/install-test-tools.sh
	mkdir -p build
	@{ { $(LINT); } >build/lint.log 2>&1; echo $$? >build/lint.rc; } & \
	$(PYTEST) -n $(WORKERS) --dist load --durations=15 --basetemp=build/pytest-tmp; tests=$$?; \
	wait; echo "--- make lint: $(LINT)"; cat build/lint.log; lint=$$(cat build/lint.rc); \
	[ "$$tests" = 0 ] && [ "$$lint" = 0 ]

# The Pi's own architecture: an arm64 Debian Trixie root under qemu's user emulation, installed as
# deploy/install.sh installs a Pi, part of the suite run there, and what it reads and referees
# compared with this machine's (root; about 30 minutes the first time: docs/install.md).
# Not part of `make test`.
arm64-check: install
	bash scripts/arm64-check.sh

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache
