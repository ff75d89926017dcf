# shellcheck shell=bash
# rpctl templates ...

TEMPLATES_PATH="/templates"

templates::list() {
  # include public templates too, people ask for them
  rp::http GET "${TEMPLATES_PATH}?includePublicTemplates=true" \
    | jq -r '.[] | select(.isPublic | not) | [.id, .name, .imageName] | @tsv'
}

templates::create() {
  local name="$1" image="$2" serverless="${3:-false}"
  local payload
  payload=$(jq -n --arg name "$name" --arg image "$image" --argjson sls "$serverless" '{
    name: $name,
    imageName: $image,
    isServerless: $sls,
    containerDiskInGb: 15,
    volumeInGb: 0,
    env: {}
  }')
  rp::http POST "$TEMPLATES_PATH" "$payload" | jq -r .id
}

templates::set_image() {
  local id="$1" image="$2"
  local path="$TEMPLATES_PATH/$id/update"
  rp::http POST "$path" "{\"imageName\": \"$image\"}" >/dev/null
}

templates::rm() {
  local path="${TEMPLATES_PATH}/$1"
  rp::http DELETE "$path" >/dev/null
}

templates::main() {
  local cmd="${1:-list}"; shift || true
  case "$cmd" in
    list) templates::list ;;
    create) templates::create "$@" ;;
    set-image) templates::set_image "$@" ;;
    rm) templates::rm "$@" ;;
    *) rp::die "templates: unknown command $cmd" ;;
  esac
}
