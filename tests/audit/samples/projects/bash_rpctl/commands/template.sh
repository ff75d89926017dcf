# shellcheck shell=bash
# rpctl template ls | create NAME IMAGE | rm ID

cmd_template() {
  local sub=${1:-ls}
  shift || true
  case $sub in
    ls|list)
      rp::http GET /templates | jq -r '.[] | [.id, .name, .imageName] | @tsv' | rp::table
      ;;
    create)
      local obj
      obj=$(jq -n --arg n "$1" --arg img "$2" \
        '{name: $n, imageName: $img, isServerless: false, containerDiskInGb: 20, volumeInGb: 0}')
      rp::http POST /templates "$obj" | jq -r .id
      ;;
    rm|delete)
      rp::http DELETE "/templates/$1" >/dev/null && echo "deleted $1"
      ;;
    *) rp::die "unknown: template $sub" ;;
  esac
}
