# shellcheck shell=bash
# rpctl billing pods|endpoints [ID]  -- last 7 days, per day

billing::window() {
  local end start
  end=$(date -u +%Y-%m-%dT00:00:00Z)
  start=$(date -u -d '7 days ago' +%Y-%m-%dT00:00:00Z 2>/dev/null || date -u -v-7d +%Y-%m-%dT00:00:00Z)
  echo "startTime=$start&endTime=$end"
}

billing::pods() {
  rp::http GET "/billing/pods?bucketSize=day&$(billing::window)" | jq '[.[].amount] | add'
}

billing::endpoints() {
  local query="bucketSize=day&$(billing::window)"
  if [[ -n "${1:-}" ]]; then
    query+="&endpointId=$1&grouping=endpointId"
  fi
  rp::http GET "/billing/endpoints?$query" | jq '[.[].amount] | add'
}

billing::main() {
  case "${1:-pods}" in
    pods) billing::pods ;;
    endpoints) shift; billing::endpoints "$@" ;;
    *) rp::die "billing: pods or endpoints" ;;
  esac
}
