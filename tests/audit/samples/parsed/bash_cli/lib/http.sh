#!/usr/bin/env bash
# HTTP helper for the rp CLI
: "${RUNPOD_API_BASE:=https://rest.runpod.io/v1}"

rp::http() {
  local method="$1" path="$2" body="${3:-}"
  local args=(-sS -X "$method" -H "Authorization: Bearer ${RUNPOD_API_KEY}" -H "Content-Type: application/json")
  [[ -n "$body" ]] && args+=(-d "$body")
  curl "${args[@]}" "${RUNPOD_API_BASE}${path}"
}
