#!/usr/bin/env bash
# Night-time cost guard: stop or terminate pods through GraphQL, report storage through REST v1.
set -euo pipefail

GQL="https://api.runpod.io/graphql?api_key=${RUNPOD_API_KEY}"
REST="${RUNPOD_REST_URL:-https://rest.runpod.io/v1}"

gql() {
  local query="$1" vars="${2:-{\}}"
  jq -n --arg q "$query" --argjson v "$vars" '{query: $q, variables: $v}' \
    | curl -sS -X POST "$GQL" -H 'Content-Type: application/json' --data-binary @-
}

read -r -d '' LIST_PODS <<'GRAPHQL' || true
query { myself { pods { id name desiredStatus costPerHr } } }
GRAPHQL

stop_pod() {
  gql 'mutation($id: String!) { podStop(input: {podId: $id}) { id desiredStatus } }' "{\"id\": \"$1\"}" >/dev/null
}

terminate_pod() {
  gql 'mutation($id: String!) { podTerminate(input: {podId: $id}) }' "{\"id\": \"$1\"}" >/dev/null
}

balance() {
  gql 'query { myself { clientBalance currentSpendPerHr } }' | jq -r '.data.myself | "\(.clientBalance) \(.currentSpendPerHr)"'
}

volumes_report() {
  curl -sS "$REST/networkvolumes" -H "Authorization: Bearer $RUNPOD_API_KEY" | jq -r '.[] | "\(.name) \(.size)GB"'
}

gql "$LIST_PODS" | jq -r '.data.myself.pods[] | select(.desiredStatus == "RUNNING") | .id' | while read -r id; do
  case "$id" in
    scratch-*) terminate_pod "$id" ;;
    *) stop_pod "$id" ;;
  esac
done
balance
volumes_report
