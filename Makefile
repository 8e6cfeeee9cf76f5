# MemHQ: `make run` starts everything, `make test` runs the whole suite. Both set up from nothing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEVSERVERS := $(BIN)/python -m config.devservers

.PHONY: run test faults lint bench eval compare clean

$(STAMP): requirements/base.txt requirements/dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	touch $(STAMP)

# Embedded PostgreSQL + Redis under ./var (kept between runs) unless DATABASE_URL / REDIS_URL are set.
# Every process writes its metrics under var/prometheus (emptied by memhq_bootstrap); /metrics adds them up.
# config.supervisor runs the Procfile and restarts a process that exits (honcho stopped them all). The banner
# (address, key, password) is printed in the background once the web process answers.
run: $(STAMP)
	PROMETHEUS_MULTIPROC_DIR=$(CURDIR)/var/prometheus $(DEVSERVERS) --data var -- sh -c '$(BIN)/python manage.py memhq_bootstrap && { $(BIN)/python manage.py memhq_bootstrap --banner & } && exec $(BIN)/python -m config.supervisor Procfile'

# A throwaway data directory, deleted afterwards. The browser tests need Debian's chromium + chromium-driver:
# .ci/ensure-browser installs them when missing (the tests are skipped, loudly, when it cannot).
test: $(STAMP)
	@.ci/ensure-browser
	$(DEVSERVERS) --data "$$(mktemp -d /tmp/memhq-test.XXXXXX)" --ephemeral -- $(BIN)/python -m pytest $(PYTEST_ARGS)

# The fault suite alone, full size (docs/reliability.md): real workers, relay, gunicorn and its front, a private
# Redis and a private PostgreSQL killed, stopped, frozen and restarted; the webhook receiver scenarios. make test
# runs the same tests smaller (7 kill trials, a 5 s database outage).
FAULT_ENV ?= MEMHQ_FAULT_TRIALS=105 MEMHQ_FAULT_DB_OUTAGE_S=30 MEMHQ_FAULT_SLOW_CLIENTS=200
faults: $(STAMP)
	$(FAULT_ENV) $(DEVSERVERS) --data "$$(mktemp -d /tmp/memhq-faults.XXXXXX)" --ephemeral -- $(BIN)/python -m pytest tests/faults tests/webhooks -m fault -q -s $(PYTEST_ARGS)

# Benchmarks against embedded servers in a throwaway directory: make bench ARGS="add --clients 32 --seconds 20"
bench: $(STAMP)
	$(DEVSERVERS) --data "$$(mktemp -d /tmp/memhq-bench.XXXXXX)" --ephemeral -- sh -c '$(BIN)/python manage.py migrate -v0 && $(BIN)/python manage.py memhq_bench $(ARGS)'

# Retrieval evaluation: make eval DATA=../shared/eval/locomo-dev ARGS="--signals"
# EVALDB=folder keeps the embedded servers' data there (with ARGS="--keep --project NAME", a later
# ARGS="--project NAME --reuse" asks again without ingesting).
EVALDB ?=
eval: $(STAMP)
	$(DEVSERVERS) $(if $(EVALDB),--data $(EVALDB),--data "$$(mktemp -d /tmp/memhq-eval.XXXXXX)" --ephemeral) -- sh -c '$(BIN)/python manage.py migrate -v0 && $(BIN)/python manage.py memhq_eval --data $(DATA) $(ARGS)'

# Two --json reports, paired per question with bootstrap intervals (no database): make compare A=a.json B=b.json
compare: $(STAMP)
	$(BIN)/python manage.py memhq_eval --compare $(A) $(B)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .

clean:
	rm -rf $(VENV) var
