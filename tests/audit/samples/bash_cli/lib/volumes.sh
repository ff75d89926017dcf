# shellcheck shell=bash
# rpctl volumes ...   (network volumes)

readonly VOLUMES_URL="$RP_API/networkvolumes"

volumes::list() {
  curl -sS -H "Authorization: Bearer $RUNPOD_API_KEY" "$VOLUMES_URL" \
    | jq -r '.[] | [.id, .name, (.size|tostring) + "GB", .dataCenterId] | @tsv'
}

volumes::create() {
  local name="$1" size="$2" dc="${3:-EU-RO-1}"
  curl -sS -X POST "$VOLUMES_URL" \
    -H "Authorization: Bearer $RUNPOD_API_KEY" \
    -H 'Content-Type: application/json' \
    -d "{\"name\":\"$name\",\"size\":$size,\"dataCenterId\":\"$dc\"}" | jq -r .id
}

volumes::rm() {
  local id="$1"
  curl -sS -X DELETE -H "Authorization: Bearer $RUNPOD_API_KEY" "$VOLUMES_URL/$id" -o /dev/null -w '%{http_code}\n'
}

volumes::main() {
  local cmd="${1:-list}"; shift || true
  case "$cmd" in
    list) volumes::list ;;
    create) volumes::create "$@" ;;
    rm) volumes::rm "$@" ;;
    *) rp::die "volumes: unknown command $cmd" ;;
  esac
}
