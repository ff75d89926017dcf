# shellcheck shell=bash
# rpctl billing pods|volumes|endpoints [DAYS]

cmd_billing() {
  local days=${2:-7}
  local start
  start=$(date -u -d "-${days} days" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -v-"${days}"d +%Y-%m-%dT%H:%M:%SZ)
  case ${1:-pods} in
    pods) _billing /billing/pods "startTime=$start&bucketSize=day" ;;
    volumes) _billing /billing/networkvolumes "startTime=$start" ;;
    endpoints) _billing /billing/endpoints ;;
  esac | jq -r '.[] | [.time, .amount] | @tsv'
}
