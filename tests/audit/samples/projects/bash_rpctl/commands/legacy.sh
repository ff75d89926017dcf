# shellcheck shell=bash
# rpctl legacy pods|template ID  (kept for the nightly cron)

cmd_legacy() {
  case ${1:-pods} in
    pods) rp_legacy_get /pods ;;
    template) rp_legacy_get "/templates/$2" ;;
  esac
}
