# shellcheck shell=bash
# rpctl pods ...

pods::list() {
  rp::http GET "/pods" | jq -r '.[] | [.id, .desiredStatus, .name, (.costPerHr|tostring)] | @tsv' | column -t
}

pods::get() {
  local id="$1"
  rp::http GET "/pods/$id" | jq '{id, name, desiredStatus, image, publicIp, portMappings}'
}

pods::create() {
  local name="$1" image="$2" gpu="${3:-NVIDIA GeForce RTX 4090}"
  local body
  body=$(cat <<JSON
{
  "name": "$name",
  "imageName": "$image",
  "gpuTypeIds": ["$gpu"],
  "gpuCount": 1,
  "cloudType": "SECURE",
  "containerDiskInGb": 20,
  "volumeInGb": 20,
  "volumeMountPath": "/workspace",
  "ports": ["8888/http", "22/tcp"],
  "templateId": "${RPCTL_TEMPLATE:-}",
  "networkVolumeId": "${RPCTL_VOLUME:-}"
}
JSON
)
  rp::http POST "/pods" "$body" | jq -r '.id'
}

# start | stop | restart | reset: one route shape, the verb is the last segment
pods::action() {
  local action="$1" id="$2"
  case "$action" in start|stop|restart|reset) ;; *) rp::die "bad action $action" ;; esac
  rp::http POST "/pods/$id/$action" >/dev/null
  echo "$action: $id"
}

pods::wait() {
  local id="$1" want="${2:-RUNNING}" status
  for _ in $(seq 1 60); do
    status=$(rp::http GET "/pods/$id" | jq -r '.desiredStatus')
    [[ "$status" == "$want" ]] && return 0
    sleep 5
  done
  rp::die "pod $id did not reach $want"
}

pods::rename() {
  local id="$1" name="$2"
  rp::http PATCH "/pods/$id" "$(rp::json name="$name")" | jq -r '.name'
}

pods::rm() {
  local id="$1"
  rp::http DELETE "/pods/${id}" >/dev/null && echo "removed $id"
}

pods::main() {
  local cmd="${1:-list}"; shift || true
  case "$cmd" in
    list) pods::list ;;
    get) pods::get "$@" ;;
    create) pods::create "$@" ;;
    start|stop|restart|reset) pods::action "$cmd" "$@" ;;
    wait) pods::wait "$@" ;;
    rename) pods::rename "$@" ;;
    rm) pods::rm "$@" ;;
    *) rp::die "pods: unknown command $cmd" ;;
  esac
}
