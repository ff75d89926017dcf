#!/usr/bin/env bash
# shellcheck shell=bash
# HTTP plumbing for rpctl. Sourced by bin/rpctl, never executed directly.

RP_REST_BASE=${RP_REST_BASE:-https://rest.runpod.io/v1}
RP_TIMEOUT=${RP_TIMEOUT:-30}
RP_DEBUG=${RP_DEBUG:-0}

rp::die() { printf 'rpctl: %s\n' "$*" >&2; exit 1; }

# rp::http METHOD PATH [BODY]
#   prints the response body; dies on HTTP >= 400 with the API's message
rp::http() {
  local method=$1 path=$2 body=${3:-}
  local -a args=(-sS -X "$method" -w '\n%{http_code}'
    -H "Authorization: Bearer ${RUNPOD_API_KEY:?RUNPOD_API_KEY is not set}"
    --max-time "$RP_TIMEOUT")
  if [[ -n $body ]]; then
    args+=(-H 'Content-Type: application/json' --data "$body")
  fi
  [[ $RP_DEBUG == 1 ]] && printf '>> %s %s\n' "$method" "$path" >&2
  local out code
  out=$(curl "${args[@]}" "${RP_REST_BASE}${path}") || rp::die "curl failed"
  code=${out##*$'\n'}
  out=${out%$'\n'*}
  if (( code >= 400 )); then
    rp::die "$(jq -r '.message // .error // "HTTP '"$code"'"' <<<"$out")"
  fi
  printf '%s' "$out"
}
