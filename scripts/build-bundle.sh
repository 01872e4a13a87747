#!/usr/bin/env bash
# Build policies/ into a signed OPA bundle: `make bundle` calls this after `make tools venv`.
#
#   BUNDLE_SIGNING_KEY=/secure/agent-authz-1.pem make bundle
#
# * The bundle holds policies/ and its data, without the *_test.rego files
#   (`opa build -b policies --ignore '*_test.rego'`).
# * Its revision (the .manifest's `revision`, which OPA reports with every decision) is
#   the commit of HEAD, plus `-dirty` when `git status --porcelain` lists anything: a
#   bundle that is not exactly a commit says so.
# * It is signed (RS256, `.signatures.json`) with the private key at
#   BUNDLE_SIGNING_KEY under the key id BUNDLE_KEY_ID (default agent-authz-1), which
#   the sidecars look up among their `keys` (deploy/opa/config.yaml).
#   Without BUNDLE_SIGNING_KEY the development key .data/bundle-keys/dev-signing.pem is
#   used (generated on first use, key id agent-authz-dev): good for
#   `POLICY_BUNDLE=... make run`, refused by every deployed sidecar.
# * When the public key is known (BUNDLE_VERIFICATION_KEY, or the development key's),
#   the written bundle is verified against it before this script reports success.
#
# Output: BUNDLE_OUT (default .data/bundles/agent-authz.tar.gz); the last line printed
# is the bundle's revision.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" bundle

OPA="$ROOT/.bin/opa"
[[ -x "$OPA" ]] || die ".bin/opa missing: run make tools"
git rev-parse --verify -q HEAD >/dev/null || die "not a git checkout with a commit: the revision is the commit"

POLICIES="${POLICIES:-policies}"
BUNDLE_OUT="${BUNDLE_OUT:-.data/bundles/agent-authz.tar.gz}"
DEV_KEYS="$ROOT/.data/bundle-keys"

revision="$(git rev-parse HEAD)"
if [[ -n "$(git status --porcelain)" ]]; then
	revision="$revision-dirty"
fi

if [[ -n "${BUNDLE_SIGNING_KEY:-}" ]]; then
	[[ -r "$BUNDLE_SIGNING_KEY" ]] || die "BUNDLE_SIGNING_KEY=$BUNDLE_SIGNING_KEY is not a readable file"
	signing_key="$BUNDLE_SIGNING_KEY"
	key_id="${BUNDLE_KEY_ID:-agent-authz-1}"
	verification_key="${BUNDLE_VERIFICATION_KEY:-}"
else
	signing_key="$DEV_KEYS/dev-signing.pem"
	verification_key="$DEV_KEYS/dev-verification.pem"
	key_id="${BUNDLE_KEY_ID:-agent-authz-dev}"
	if [[ ! -f "$signing_key" ]]; then
		require_venv
		"$PYTHON" scripts/bundle_keys.py --private "$signing_key" --public "$verification_key"
		printf 'bundle: generated the development key pair in %s\n' "${DEV_KEYS#"$ROOT"/}" >&2
	fi
	printf 'bundle: NOTE: BUNDLE_SIGNING_KEY is not set: signing with the development key\n' >&2
	printf 'bundle:       (key id %s), which deployed sidecars do not trust\n' "$key_id" >&2
fi

mkdir -p "$(dirname "$BUNDLE_OUT")"
staging="$BUNDLE_OUT.tmp.$$"
trap 'rm -f "$staging"' EXIT
"$OPA" build --bundle "$POLICIES" --ignore '*_test.rego' \
	--revision "$revision" \
	--signing-key "$signing_key" --signing-alg RS256 --verification-key-id "$key_id" \
	--output "$staging"
if [[ -n "$verification_key" ]]; then
	"$OPA" build --bundle "$staging" --verification-key "$verification_key" \
		--verification-key-id "$key_id" --output /dev/null ||
		die "the bundle does not verify with $verification_key (key id $key_id)"
fi
mv "$staging" "$BUNDLE_OUT"
trap - EXIT

digest="$(sha256sum "$BUNDLE_OUT" | cut -d' ' -f1)"
printf 'bundle: wrote %s (sha256 %s), signed with key id %s\n' "$BUNDLE_OUT" "$digest" "$key_id" >&2
printf '%s\n' "$revision"
