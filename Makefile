# Fruit Catalog — the commands a newcomer needs. `make run` and `make test` do all the set-up.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint bench slow-clients migrate demo messages clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python requirements.txt requirements-dev.txt
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

# axe-core and Lighthouse for the browser tests' accessibility and page checks, from the npm
# registry (package-lock.json pins them). Without npm (or offline) make test goes on, and those
# tests skip saying why (CI fails).
$(NODE_STAMP): package.json package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "npm is not installed: the accessibility tests will skip (they need node_modules/axe-core)"; \
	elif npm ci --no-audit --no-fund; then \
		touch $(NODE_STAMP); \
	else \
		echo "npm ci failed: the accessibility tests will skip (they need node_modules/axe-core)"; \
	fi

## run: install, migrate the SQLite database and serve on http://127.0.0.1:8000 (debug on)
run: migrate
	DJANGO_DEBUG=1 $(BIN)/python manage.py runserver $(HOST):$(PORT)

## migrate: install and migrate the database (SQLite unless DATABASE_URL)
migrate: $(STAMP)
	DJANGO_DEBUG=1 $(BIN)/python manage.py migrate --noinput

## test: install, lint and format check, check import layers and migrations, run every test (SQLite unless DATABASE_URL)
##       PYTEST_ARGS='-m "not browser and not slow"': the fast core only; '--reuse-db': keep the
##       PostgreSQL test database between runs
test: $(STAMP) $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	DJANGO_DEBUG=1 $(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/python -m pytest $(PYTEST_ARGS)

## lint: ruff's checks and formatting, and the import layers
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

## bench: thumbnails, backfill memory, hostile uploads' cost, an upload, search quality, lists and exports at a million fruits, imports
##        (PostgreSQL), identification's quality and speed (PostgreSQL), the change feed at a million entries (PostgreSQL),
##        HTTP throughput of bytes vs WhiteNoise and nginx (wrk), slow clients (nginx)
bench: $(STAMP)
	$(BIN)/python bench/bench_thumbnails.py
	$(BIN)/python bench/bench_backfill.py
	$(BIN)/python bench/bench_hostile.py
	$(BIN)/python bench/bench_upload.py
	$(BIN)/python bench/bench_search_quality.py
	$(BIN)/python bench/bench_scale.py
	$(BIN)/python bench/bench_bulk.py
	$(BIN)/python bench/bench_history.py
	$(BIN)/python bench/bench_identify_quality.py
	$(BIN)/python bench/bench_identify_http.py
	$(BIN)/python bench/bench_changes.py
	$(BIN)/python bench/bench_http.py
	$(BIN)/python bench/bench_slow_clients.py

## slow-clients: slowloris against gunicorn alone and behind deploy/nginx.conf (needs nginx, ~45 s)
slow-clients: $(STAMP)
	$(BIN)/python bench/bench_slow_clients.py

## messages: gather the marked texts into locale/de/LC_MESSAGES/django.po and compile it to the
##           committed django.mo (needs gettext: apt-get install gettext); translate what is new
##           in between, see docs/operations.md
LOCALE_IGNORE := --ignore=.venv --ignore=node_modules --ignore=bench --ignore=staticfiles --ignore=docs
messages: $(STAMP)
	DJANGO_DEBUG=1 $(BIN)/python manage.py makemessages -l de $(LOCALE_IGNORE) --no-obsolete
	DJANGO_DEBUG=1 $(BIN)/python manage.py compilemessages -l de $(LOCALE_IGNORE)

## demo: load the demo fruits and publications into the database
demo: migrate
	DJANGO_DEBUG=1 $(BIN)/python manage.py load_demo_data

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache staticfiles node_modules
