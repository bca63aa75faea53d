# Quick start: `make run` serves the demo on http://127.0.0.1:8000 (PORT=8001 make run: another
# port); `make test` runs the suite, `make test-fast` all but the browser and end-to-end tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)
DEMO_EMAIL := demo@example.com
DEMO_PASSWORD := demo-password-123
# The port `make run` serves on. BASE_URL (the address the service advertises to clients:
# issuer, resources, endpoints) follows it unless it is set; config/settings.py derives it alike.
PORT ?= 8000
BASE_URL ?= http://127.0.0.1:$(PORT)
APP_URL ?= $(BASE_URL)
DOCS_URL ?= $(BASE_URL)/docs
# Never echoed: the shell reads the key from the file when the command runs.
RUN_ENV = DEBUG=1 SECRET_KEY="$$(cat .secret_key)" PORT="$(PORT)" BASE_URL="$(BASE_URL)"

.PHONY: install run apikey test test-fast test-one test-journeys-pg lint check format bench bench-again synthetic

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r requirements-dev.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

.secret_key:
	$(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))' > .secret_key

# The settings make run serves with, for the README's `manage.py` commands in another terminal: manage.py
# reads this git-ignored file when the environment sets neither DEBUG nor SECRET_KEY (config/run_env.py).
RUN_ENV_FILE := .make-run.env

run: install .secret_key
	@umask 077 && printf '%s\n' "# Written by make run; read by manage.py (config/run_env.py). Never for a deployment." \
		"DEBUG=1" "SECRET_KEY=$$(cat .secret_key)" "PORT=$(PORT)" "BASE_URL=$(BASE_URL)" \
		$(if $(DATABASE_URL),"DATABASE_URL=$(DATABASE_URL)") $(if $(REDIS_URL),"REDIS_URL=$(REDIS_URL)") > $(RUN_ENV_FILE)
	$(RUN_ENV) $(PY) manage.py migrate --noinput
	$(RUN_ENV) $(PY) manage.py createuser --email $(DEMO_EMAIL) --display-name "Demo User" \
		--password $(DEMO_PASSWORD) --if-missing
	$(RUN_ENV) $(PY) manage.py import_rates --demo --if-empty
	$(RUN_ENV) $(PY) manage.py seed_demo --email $(DEMO_EMAIL)
	@echo ""
	@echo "  Service      $(BASE_URL)"
	@echo "  Sign in      $(APP_URL)/login  as $(DEMO_EMAIL) / $(DEMO_PASSWORD)"
	@echo "  MCP server   $(BASE_URL)/mcp  (this URL is what you give an assistant; how: $(DOCS_URL)/mcp)"
	@echo "  REST API     $(BASE_URL)/v1  (reference: $(DOCS_URL)/api)"
	@echo "  Docs         $(DOCS_URL)"
	@echo "  API key      make apikey  (a read-only key for the demo account, printed once; TEST=1: a test-mode key)"
	@echo "  Worker       runs beside the server (durable work: manage.py run_worker); Ctrl-C stops both"
	@echo ""
	$(RUN_ENV) $(PY) scripts/run_together.py -- $(PY) manage.py runserver 127.0.0.1:$(PORT) -- $(PY) manage.py run_worker

# A personal API key for the demo account on stdout (KEY=$$(make -s apikey)); SCOPES="a b" to choose;
# TEST=1 for a test-mode key (sk_test_...: the simulator, test-mode data, webhooks to a local receiver).
apikey: install .secret_key
	@$(RUN_ENV) $(PY) manage.py createapikey --email $(DEMO_EMAIL) $(if $(SCOPES),--scopes "$(SCOPES)") \
		$(if $(filter-out 0,$(TEST)),--test --choose-with "make apikey TEST=1 SCOPES=",--choose-with "make apikey SCOPES=")

# The suite runs in one process per core (pytest-xdist; TEST_WORKERS=1 for one process): the
# browser tests share one worker and the end-to-end tests another (tests/conftest.py), so each
# live server starts once. -rsx: the run ends by listing every skipped test with its reason.
TEST_WORKERS ?= auto
XDIST = $(if $(filter 1,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadgroup)
test: install
	$(PY) -m pytest -rsx $(XDIST) $(PYTEST_ARGS)

# A user's hour of calls (tests/e2e/test_journeys.py) against a live server and a real worker on the
# local PostgreSQL, in a database of their own.
test-journeys-pg: install
	JOURNEYS_DATABASE_URL=$${JOURNEYS_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test} \
		$(PY) -m pytest -q tests/e2e/test_journeys.py $(PYTEST_ARGS)

# The quick loop: everything but the browser (Chromium) and end-to-end (live server) tests.
test-fast: install
	$(PY) -m pytest -rsx $(XDIST) -m "not browser and not e2e" $(PYTEST_ARGS)

# The inner loop: one file, class or test (T=tests/core/test_ids.py::test_lengths_and_alphabet), its test
# database built from the models rather than by running every migration (`make check` keeps the two in
# step; CI runs the migrations).
test-one: install
	$(PY) -m pytest -q --no-migrations $(T) $(PYTEST_ARGS)

# The import contracts (.importlinter), migrations in step with the models, and Django's
# deployment checks with production-like settings.
check: install
	$(VENV)/bin/lint-imports
	DEBUG=1 $(PY) manage.py makemigrations --check --dry-run
	SECRET_KEY=check-only-$$(date +%s)-not-a-real-deployment-key-0123456789abcdef BASE_URL=https://api.example.com \
		TELEPHONY_CARRIER=twilio TWILIO_ACCOUNT_SID=AC00000000000000000000000000000000 TWILIO_AUTH_TOKEN=check-only \
		TWILIO_INTELLIGENCE_SERVICE_SID=GA00000000000000000000000000000000 \
		$(PY) manage.py check --deploy --fail-level WARNING

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The benchmark (bench/NOTES.md): about 30 minutes, 4 more when it builds its data sets; writes
# docs/performance.md. BENCH_ARGS="--rounds 1 --duration 2 --memory-requests 20000": a quick check.
bench: install
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	$(PY) -m bench.run --write-docs $(BENCH_ARGS)
	$(PY) -m bench.webhooks --write-docs
	BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_callbacks REDIS_URL=redis://127.0.0.1:6379/15 \
		$(PY) -m bench.callbacks --write-docs
	BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_messages REDIS_URL=redis://127.0.0.1:6379/15 \
		$(PY) -m bench.messages --write-docs
	BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_writes REDIS_URL=redis://127.0.0.1:6379/15 \
		$(PY) -m bench.writes --write-docs
	$(PY) -m bench.nodes --write-docs
	$(PY) -m bench.cluster_store --write-docs
	BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_deliveries $(PY) -m bench.worker_processes --write-docs
	BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_events $(PY) -m bench.event_latency --write-docs

# The read targets one run leaves close to their bound, in three runs of their own (after `make
# bench`, which builds the kept data sets): docs/performance.md, "Reads run again".
bench-again: install
	$(PY) -m bench.again --write-docs

# A bounded synthetic check of a running service (docs/operations.md, "Availability"): sign-in,
# a token, a /v1 read and a tools/call, each timed; PASS or FAIL a step, exit 1 on any FAIL.
# Against `make run` by default; set SYNTHETIC_URL, SYNTHETIC_EMAIL, SYNTHETIC_PASSWORD (and
# SYNTHETIC_CLIENT_ID) for a deployment.
synthetic:
	SYNTHETIC_URL="$${SYNTHETIC_URL:-$(BASE_URL)}" SYNTHETIC_APP_URL="$${SYNTHETIC_APP_URL:-$(APP_URL)}" \
	SYNTHETIC_EMAIL="$${SYNTHETIC_EMAIL:-$(DEMO_EMAIL)}" SYNTHETIC_PASSWORD="$${SYNTHETIC_PASSWORD:-$(DEMO_PASSWORD)}" \
	$(PYTHON) scripts/synthetic_check.py
