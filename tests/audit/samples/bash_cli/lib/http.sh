# shellcheck shell=bash
# HTTP helpers: every REST call goes through rp::http.
#
#   rp::http METHOD PATH [BODY]     -> prints the response body, fails on >= 400
#
# PATH is relative to $RP_API, e.g. "/pods" or "/pods/$id/stop".

rp::log() { [[ "$RP_DEBUG" == "1" ]] && echo "rpctl: $*" >&2 || true; }
rp::die() { echo "rpctl: $*" >&2; exit 1; }

rp::http() {
  local method="$1" path="$2" body="${3:-}"
  local tmp code attempt=0
  tmp="$(mktemp)"
  trap 'rm -f "$tmp"' RETURN
  local args=(-sS -X "$method" -o "$tmp" -w '%{http_code}' --max-time "$RP_TIMEOUT"
              -H "Authorization: Bearer ${RUNPOD_API_KEY:?RUNPOD_API_KEY is not set}"
              -H "Accept: application/json")
  if [[ -n "$body" ]]; then
    args+=(-H "Content-Type: application/json" --data-binary "$body")
  fi
  while :; do
    attempt=$((attempt + 1))
    rp::log "$method $path (attempt $attempt)"
    code=$(curl "${args[@]}" "${RP_API}${path}") || code=000
    if [[ "$code" =~ ^(000|429|502|503|504)$ && $attempt -lt $RP_RETRIES ]]; then
      sleep $((attempt * 2))
      continue
    fi
    break
  done
  if (( code >= 400 )); then
    local msg
    msg=$(jq -r '.message // .error // empty' <"$tmp" 2>/dev/null || true)
    echo "rpctl: $method $path failed ($code): ${msg:-$(cat "$tmp")}" >&2
    return 1
  fi
  cat "$tmp"
}

# rp::json KEY=VALUE... -> a JSON object (strings only), for small bodies
rp::json() {
  local args=() pair
  for pair in "$@"; do args+=(--arg "${pair%%=*}" "${pair#*=}"); done
  jq -n "${args[@]}" '$ARGS.named'
}
