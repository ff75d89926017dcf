# shellcheck shell=bash
# rpctl jobs run ENDPOINT_ID JSON -- the serverless job API (not the REST API)

jobs::run() {
  local endpoint="$1" input="$2"
  curl -sS -X POST "$RP_JOBS_API/$endpoint/runsync" \
    -H "Authorization: Bearer $RUNPOD_API_KEY" \
    -H 'Content-Type: application/json' \
    -d "{\"input\": $input}" | jq .
}

jobs::status() {
  curl -sS "$RP_JOBS_API/$1/status/$2" -H "Authorization: Bearer $RUNPOD_API_KEY" | jq -r .status
}

jobs::open() {
  # the pod's own HTTP service, through the pod proxy
  curl -sS "https://$1-8888.proxy.runpod.net/api/status"
}

jobs::main() {
  case "${1:-}" in
    run) shift; jobs::run "$@" ;;
    status) shift; jobs::status "$@" ;;
    open) shift; jobs::open "$@" ;;
    *) rp::die "jobs: run|status|open" ;;
  esac
}
