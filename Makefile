# Build, run and check the service. The two commands that matter: `make run`, `make test`.
# Every target installs what it needs first (venv, Python deps, OPA/Regal, PostgreSQL, Redis).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.NOTPARALLEL:

# The Go toolchain from go.dev installs into /usr/local/go; CI shells may lack it on PATH.
ifneq ($(wildcard /usr/local/go/bin/go),)
export PATH := $(PATH):/usr/local/go/bin
endif

VENV   := .venv
PYTHON := $(VENV)/bin/python
OPA    := .bin/opa
REGAL  := .bin/regal
PROMTOOL := .bin/promtool
POLICIES ?= policies

# Minimum policy coverage in percent reported by `opa test --coverage`.
POLICY_COVERAGE ?= 95
# Set to 1 to make `make lint` (and so `make test`) also require `ruff format --check`.
RUFF_FORMAT_CHECK ?= 1
# Extra arguments for pytest, e.g. make unit PYTEST_ARGS='-k context -x'.
PYTEST_ARGS ?=
PYTEST := $(PYTHON) -m pytest -p no:cacheprovider $(PYTEST_ARGS)
# The integration suite's policy inputs, recorded by every service the tests start
# (policy.corpus_file) and replayed by the policy impact diff.
RECORDED_CORPUS := $(CURDIR)/.data/policy-corpus/recorded.jsonl
# The base revision of `make policy-diff` (the working tree is the head).
BASE ?= HEAD
# Extra arguments for `python -m app policy diff`, e.g. POLICY_DIFF_ARGS='--format markdown'.
POLICY_DIFF_ARGS ?=
# The mutation gate of `make test`: a seeded sample of the policies' mutants
# (`make policy-mutants` runs all of them). Extra arguments: POLICY_MUTANTS_ARGS.
POLICY_MUTANTS_SAMPLE ?= 80
POLICY_MUTANTS_SEED ?= 20
POLICY_MUTANTS_ARGS ?=
POLICY_MUTANTS_REPORT := $(CURDIR)/.data/policy-mutants

stage = @printf '\n==> %s\n' "$(1)"

.PHONY: help deps tools venv postgres redis run test policy-test config-doc-check lint \
	format-check format typecheck pytest unit contract integration bench config-doc clean \
	sdk-client sdk-client-check policy-diff policy-doc policy-doc-check policy-diff-check \
	observability-check bundle manifests-check policy-mutants policy-mutants-check

help: ## list the targets
	@echo "make run    start PostgreSQL, OPA, Redis and the API with the demo world (see README.md)"
	@echo "make test   every check CI runs (.ci/run calls it)"
	@echo "make policy-diff BASE=<rev>   every decision the policy change since <rev> flips"
	@echo "make bundle BUNDLE_SIGNING_KEY=<pem>   build and sign policies/ as an OPA bundle"
	@echo "make policy-mutants           mutation testing of the policies (opa test and the diff)"
	@echo
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | sort | \
		awk -F'\t' '{ printf "  %-18s %s\n", $$1, $$2 }'

# --- set-up -----------------------------------------------------------------

deps: tools venv postgres redis ## install everything: OPA/Regal, venv, PostgreSQL, Redis

tools: ## build the pinned OPA, Regal, kubeconform and kustomize into .bin/ (reused when the version matches)
	$(call stage,tools: pinned OPA, Regal, kubeconform and kustomize in .bin/)
	@bash scripts/build-tools.sh

venv: ## create .venv and install the package with dev extras when pyproject.toml changed
	$(call stage,venv: .venv with the package and dev extras)
	@bash scripts/bootstrap.sh

postgres: ## install Debian's PostgreSQL when initdb/pg_ctl are missing
	$(call stage,postgres: server binaries)
	@echo "PostgreSQL binaries in $$(bash scripts/install-postgres.sh | tail -n 1)"

redis: ## install Debian's redis-server when missing (rate limits shared by workers and replicas)
	$(call stage,redis: server binary)
	@echo "redis-server at $$(bash scripts/install-redis.sh | tail -n 1)"

# --- the two commands ---------------------------------------------------------

run: deps ## start PostgreSQL, OPA, Redis and the API with the demo world (env: PORT, DATABASE_URL, OPA_URL, REDIS_PORT, WORLD, POLICY_BUNDLE)
	$(call stage,run: scripts/run.sh)
	@bash scripts/run.sh

test: deps policy-test config-doc-check policy-doc-check policy-mutants-check sdk-client-check observability-check manifests-check lint typecheck pytest policy-diff-check ## every check: policies, mutation gate, config and decision docs, SDK client, alert rules, manifests, ruff, mypy, pytest, recorded-corpus replay
	@printf '\n==> make test: all checks passed\n'

# --- parts of make test ---------------------------------------------------------

policy-test: tools ## opa check --strict, opa fmt, Regal lint, opa test with the coverage gate
	$(call stage,policy: opa check --strict $(POLICIES))
	@$(OPA) check --strict $(POLICIES)
	$(call stage,policy: opa fmt --fail --list $(POLICIES))
	@unformatted="$$($(OPA) fmt --fail --list $(POLICIES) 2>&1)" || status=$$?; \
		if [ -n "$$unformatted" ] || [ "$${status:-0}" -ne 0 ]; then \
			echo "$$unformatted"; \
			echo "these policy files need formatting: run $(OPA) fmt --write $(POLICIES)" >&2; \
			exit 1; \
		fi
	$(call stage,policy: regal lint $(POLICIES))
	@$(REGAL) lint $(POLICIES)
	$(call stage,policy: opa test --coverage (at least $(POLICY_COVERAGE) percent))
	@mkdir -p .data
	@$(OPA) test $(POLICIES) --coverage --threshold $(POLICY_COVERAGE) >.data/policy-coverage.json
	@cov="$$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["coverage"], 2))' .data/policy-coverage.json)"; \
		echo "policy tests passed; coverage $$cov percent (gate $(POLICY_COVERAGE), report .data/policy-coverage.json)"

config-doc-check: venv ## fail when docs/configuration.md is stale
	$(call stage,config: docs/configuration.md matches the schema)
	@$(PYTHON) -m app config-doc --check

sdk-client-check: venv ## fail when agent_sdk/client differs from a fresh generation from the spec
	$(call stage,sdk: agent_sdk/client matches openapi/openapi.yaml)
	@$(PYTHON) scripts/generate_sdk_client.py --check

observability-check: tools ## promtool: check and unit-test the alert rules, check the example Prometheus config
	$(call stage,observability: promtool check rules / test rules / check config (deploy/prometheus))
	@$(PROMTOOL) check rules deploy/prometheus/alerts.yml
	@cd deploy/prometheus && ../../$(PROMTOOL) test rules alerts_test.yml
	@$(PROMTOOL) check config deploy/prometheus/prometheus.yml

manifests-check: tools venv ## kubeconform (offline schemas) over kustomize build deploy/k8s; docker compose config when installed
	$(call stage,manifests: kubeconform over deploy/k8s (kustomize build); docker compose config)
	@bash scripts/check-manifests.sh

lint: venv ## ruff check (and ruff format --check when RUFF_FORMAT_CHECK=1)
	$(call stage,lint: ruff check .)
	@$(PYTHON) -m ruff check .
ifeq ($(RUFF_FORMAT_CHECK),1)
	$(call stage,lint: ruff format --check .)
	@$(PYTHON) -m ruff format --check .
endif

format-check: venv ## ruff format --check . (not yet part of make test)
	$(call stage,lint: ruff format --check .)
	@$(PYTHON) -m ruff format --check .

format: venv ## ruff format . and opa fmt --write policies (rewrites files)
	@$(PYTHON) -m ruff format .
	@$(OPA) fmt --write policies

typecheck: venv ## mypy (strict, configured in pyproject.toml)
	$(call stage,typecheck: mypy)
	@$(PYTHON) -m mypy

pytest: deps ## pytest: unit, contract and integration tests (starts its own PostgreSQL, OPA and Redis)
	$(call stage,pytest: tests/unit tests/contract tests/integration (policy inputs recorded))
	@mkdir -p $(dir $(RECORDED_CORPUS)) && rm -f $(RECORDED_CORPUS)
	@POLICY_CORPUS_FILE=$(RECORDED_CORPUS) $(PYTEST) tests/unit tests/contract tests/integration

unit: deps ## pytest tests/unit
	$(call stage,pytest: tests/unit)
	@$(PYTEST) tests/unit

contract: deps ## pytest tests/contract
	$(call stage,pytest: tests/contract)
	@$(PYTEST) tests/contract

integration: deps ## pytest tests/integration (real PostgreSQL and OPA; policy inputs recorded)
	$(call stage,pytest: tests/integration)
	@mkdir -p $(dir $(RECORDED_CORPUS)) && rm -f $(RECORDED_CORPUS)
	@POLICY_CORPUS_FILE=$(RECORDED_CORPUS) $(PYTEST) tests/integration

policy-doc-check: tools venv ## fail when docs/policy-decisions.md differs from the policies
	$(call stage,policy: docs/policy-decisions.md matches the policies)
	@$(PYTHON) -m app policy doc --check

policy-mutants-check: tools venv ## mutation gate: a seeded sample of mutants, each killed by opa test is reported by the diff
	$(call stage,policy: mutation gate ($(POLICY_MUTANTS_SAMPLE) sampled mutants, seed $(POLICY_MUTANTS_SEED)))
	@mkdir -p $(POLICY_MUTANTS_REPORT)
	@$(PYTHON) -m app policy mutants --policies $(POLICIES) --sample $(POLICY_MUTANTS_SAMPLE) \
		--sample-seed $(POLICY_MUTANTS_SEED) --gate --quiet $(POLICY_MUTANTS_ARGS) \
		| tee $(POLICY_MUTANTS_REPORT)/sample.txt

policy-diff-check: tools venv ## replay the recorded corpus on two servers of the working tree's policies: no change, every record answered
	$(call stage,policy: self-diff of the recorded corpus ($(notdir $(RECORDED_CORPUS))))
	@test -s $(RECORDED_CORPUS) || { echo "$(RECORDED_CORPUS) is missing or empty: run make pytest first" >&2; exit 1; }
	@$(PYTHON) -m app policy diff --base-dir $(POLICIES) --corpus $(RECORDED_CORPUS) \
		--require-answers --examples 1

# --- the reviewer's command -------------------------------------------------------

# `make policy-diff` exits with the tool's own status: 0 no decision changed, 1 some
# did (or --expect failed), 2 it could not run. Make turns every failing recipe into
# its status 2, except in question mode (-q): there a recipe line make must run (a
# `+` line) that exits 1 makes make exit 1 (GNU make's support for a recursive
# `make -q`), and 0 and 2 pass as they are. So this goal runs in question mode with
# `+` lines only, and sets itself up in the recipe (question mode runs no other
# target's recipe); a failing set-up exits 2. Only when it is the sole goal.
ifeq ($(MAKECMDGOALS),policy-diff)
MAKEFLAGS += -q
endif

policy-diff: ## every decision the policies' change since BASE flips (BASE=<git rev>, default HEAD); exits 0/1/2 like the tool
	+@printf '\n==> %s\n' "policy-diff: $(BASE) -> working tree" >&2
	+@bash scripts/build-tools.sh >&2 || exit 2
	+@bash scripts/bootstrap.sh >&2 || exit 2
	+@$(PYTHON) -m app policy diff --base $(BASE) $(POLICY_DIFF_ARGS)

policy-mutants: tools venv ## mutation testing: every mutant of policies/ through opa test and the diff (report in .data/policy-mutants/)
	$(call stage,policy-mutants: every mutant of $(POLICIES) (opa test and the impact diff))
	@mkdir -p $(POLICY_MUTANTS_REPORT)
	@status=0; $(PYTHON) -m app policy mutants --policies $(POLICIES) --gate --format markdown \
		--output $(POLICY_MUTANTS_REPORT)/full.md $(POLICY_MUTANTS_ARGS) || status=$$?; \
		cat $(POLICY_MUTANTS_REPORT)/full.md 2>/dev/null || true; exit $$status

policy-doc: tools venv ## regenerate docs/policy-decisions.md from the generated corpus
	@$(PYTHON) -m app policy doc

# --- releasing a policy -------------------------------------------------------------

bundle: tools venv ## build policies/ into a signed OPA bundle (BUNDLE_SIGNING_KEY=<pem>, BUNDLE_KEY_ID, BUNDLE_OUT)
	$(call stage,bundle: opa build -b $(POLICIES) --revision <commit> --signing-key ...)
	@bash scripts/build-bundle.sh

# --- other ------------------------------------------------------------------------

bench: deps ## load benchmark (python -m tests.load.bench)
	$(call stage,bench: python -m tests.load.bench)
	@$(PYTHON) -m tests.load.bench

config-doc: venv ## regenerate docs/configuration.md from the configuration schema
	@$(PYTHON) -m app config-doc >docs/configuration.md.tmp
	@mv docs/configuration.md.tmp docs/configuration.md
	@echo "wrote docs/configuration.md"

sdk-client: venv ## regenerate agent_sdk/client from openapi/openapi.yaml (openapi-python-client)
	@$(PYTHON) scripts/generate_sdk_client.py

clean: ## remove .data (local cluster, logs) and caches; keeps .venv and .bin
	@pidfile=.data/pg/data/postmaster.pid; \
		if [ -f "$$pidfile" ] && kill -0 "$$(head -n 1 "$$pidfile")" 2>/dev/null; then \
			echo "PostgreSQL from .data/pg is still running (pid $$(head -n 1 "$$pidfile")): stop make run first" >&2; \
			exit 1; \
		fi
	rm -rf .data .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
	find . -path ./.venv -prune -o -path ./.bin -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
