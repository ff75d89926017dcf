# shellcheck shell=bash
# rpctl endpoints ...
# NOTE: endpoints are still on the v1 paths (/endpoints/{id}/update); see CHANGELOG.

endpoints::list() {
  rp::http GET /endpoints | jq -r '.[] | "\(.id)\t\(.name)\t\(.workersMin)-\(.workersMax)"'
}

endpoints::scale() {
  local id="$1" min="$2" max="$3"
  local body
  body=$(jq -nc --argjson min "$min" --argjson max "$max" '{workersMin: $min, workersMax: $max}')
  rp::http POST "/endpoints/$id/update" "$body" | jq -r '"\(.name): \(.workersMin)-\(.workersMax)"'
}

endpoints::create() {
  local name="$1" template="$2"
  rp::http POST /endpoints "$(cat <<EOF_JSON
{"name": "$name", "templateId": "$template", "gpuTypeIds": ["NVIDIA RTX A5000"],
 "workersMin": 0, "workersMax": 2, "idleTimeout": 5, "flashboot": true}
EOF_JSON
)"
}

endpoints::rm() {
  rp::http DELETE "/endpoints/$1" >/dev/null
}

endpoints::main() {
  local cmd="${1:-list}"; shift || true
  case "$cmd" in
    list) endpoints::list ;;
    scale) endpoints::scale "$@" ;;
    create) endpoints::create "$@" ;;
    rm) endpoints::rm "$@" ;;
    *) rp::die "endpoints: unknown command $cmd" ;;
  esac
}
