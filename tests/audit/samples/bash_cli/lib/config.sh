# shellcheck shell=bash
# Configuration, read once when rpctl starts.
#
# RUNPOD_REST_URL overrides the API base (default: the public v1 REST API,
# https://rest.runpod.io/v1). Point it at a v1bridge proxy to keep using
# rpctl after the v1 shutdown.

RP_API="${RUNPOD_REST_URL:-https://rest.runpod.io/v1}"
RP_JOBS_API="${RUNPOD_ENDPOINT_URL:-https://api.runpod.ai/v2}"
RP_RETRIES="${RPCTL_RETRIES:-3}"
RP_TIMEOUT="${RPCTL_TIMEOUT:-30}"
RP_DEBUG="${RPCTL_DEBUG:-0}"

if [[ -z "${RUNPOD_API_KEY:-}" && -f "$HOME/.config/rpctl/key" ]]; then
  RUNPOD_API_KEY="$(<"$HOME/.config/rpctl/key")"
fi
export RUNPOD_API_KEY
