# MemHQ: `make run` starts everything, `make test` runs the whole suite. Both set up from nothing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEVSERVERS := $(BIN)/python -m config.devservers

.PHONY: run test lint bench eval clean

$(STAMP): requirements/base.txt requirements/dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	touch $(STAMP)

# Embedded PostgreSQL + Redis under ./var (kept between runs) unless DATABASE_URL / REDIS_URL are set.
# The banner (address, key, password) is printed in the background once the web process answers.
run: $(STAMP)
	$(DEVSERVERS) --data var -- sh -c '$(BIN)/python manage.py memhq_bootstrap && { $(BIN)/python manage.py memhq_bootstrap --banner & } && exec $(BIN)/honcho start'

# A throwaway data directory, deleted afterwards.
test: $(STAMP)
	$(DEVSERVERS) --data "$$(mktemp -d /tmp/memhq-test.XXXXXX)" --ephemeral -- $(BIN)/python -m pytest $(PYTEST_ARGS)

# Benchmarks against embedded servers in a throwaway directory: make bench ARGS="add --clients 32 --seconds 20"
bench: $(STAMP)
	$(DEVSERVERS) --data "$$(mktemp -d /tmp/memhq-bench.XXXXXX)" --ephemeral -- sh -c '$(BIN)/python manage.py migrate -v0 && $(BIN)/python manage.py memhq_bench $(ARGS)'

# Retrieval evaluation: make eval DATA=../shared/eval/locomo-dev ARGS="--signals"
eval: $(STAMP)
	$(DEVSERVERS) --data "$$(mktemp -d /tmp/memhq-eval.XXXXXX)" --ephemeral -- sh -c '$(BIN)/python manage.py migrate -v0 && $(BIN)/python manage.py memhq_eval --data $(DATA) $(ARGS)'

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .

clean:
	rm -rf $(VENV) var
