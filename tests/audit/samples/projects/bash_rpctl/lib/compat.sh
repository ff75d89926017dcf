# shellcheck shell=bash
# Old scripts still call this; RUNPOD_LEGACY_URL comes from the deploy environment.
rp_legacy_get() {
  curl -fsS -H "Authorization: Bearer ${RUNPOD_API_KEY}" "${RUNPOD_LEGACY_URL}$1"
}
