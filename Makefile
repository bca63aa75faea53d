# Quick start: `make run` serves the demo on http://127.0.0.1:8000; `make test` runs the suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)
DEMO_EMAIL := demo@example.com
DEMO_PASSWORD := demo-password-123
RUN_ENV = DEBUG=1 SECRET_KEY="$$(cat .secret_key)"

.PHONY: install run test lint check format bench

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r requirements-dev.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

.secret_key:
	$(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))' > .secret_key

run: install .secret_key
	$(RUN_ENV) $(PY) manage.py migrate --noinput
	$(RUN_ENV) $(PY) manage.py createuser --email $(DEMO_EMAIL) --display-name "Demo User" \
		--password $(DEMO_PASSWORD) --if-missing
	@echo "Demo account: $(DEMO_EMAIL) / $(DEMO_PASSWORD)  (sign in at http://127.0.0.1:8000/login)"
	@echo "API key:      $(RUN_ENV) $(PY) manage.py createapikey --email $(DEMO_EMAIL)"
	$(RUN_ENV) $(PY) manage.py runserver 127.0.0.1:8000

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

# The import contracts (.importlinter), migrations in step with the models, and Django's
# deployment checks with production-like settings.
check: install
	$(VENV)/bin/lint-imports
	DEBUG=1 $(PY) manage.py makemigrations --check --dry-run
	SECRET_KEY=check-only-$$(date +%s)-not-a-real-deployment-key-0123456789abcdef BASE_URL=https://api.example.com \
		$(PY) manage.py check --deploy --fail-level WARNING

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	$(PY) -m bench.run --write-docs $(BENCH_ARGS)
