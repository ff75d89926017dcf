# shellcheck shell=bash
# rpctl pod ls | get ID | stop ID | start ID | rm ID

cmd_pod() {
  local sub=${1:-ls} id=${2:-}
  case $sub in
    ls)
      rp::http GET "/pods" | jq -r '.[] | [.id, .name, .desiredStatus] | @tsv'
      ;;
    get)
      rp::http GET "/pods/${id}"
      ;;
    stop|start)
      # v1 has one route per verb
      rp::http POST "/pods/$id/$sub" >/dev/null
      ;;
    halt)
      rp::http POST "/pods/${id}/stop"
      ;;
    rm)
      rp::http DELETE "/pods/$id"
      ;;
  esac
}
