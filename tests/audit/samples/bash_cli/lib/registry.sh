# shellcheck shell=bash
# rpctl registry ...   (container registry credentials)

REGISTRY_SEGMENT=containerregistryauth

registry::list() {
  rp::http GET "/$REGISTRY_SEGMENT" | jq -r '.[] | "\(.id) \(.name)"'
}

registry::add() {
  local name="$1" user="$2" password
  read -rsp "password for $user: " password; echo >&2
  rp::http POST "/$REGISTRY_SEGMENT" "$(rp::json name="$name" username="$user" password="$password")" | jq -r .id
}

registry::rm() {
  rp::http DELETE "/$REGISTRY_SEGMENT/$1" >/dev/null
}

registry::main() {
  local cmd="${1:-list}"; shift || true
  case "$cmd" in
    list) registry::list ;;
    add) registry::add "$@" ;;
    rm) registry::rm "$@" ;;
    *) rp::die "registry: unknown command $cmd" ;;
  esac
}
