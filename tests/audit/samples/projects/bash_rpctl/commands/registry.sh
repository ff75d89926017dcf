# shellcheck shell=bash
# rpctl registry ls | add NAME USER PASS | rm ID

REG_PATH=containerregistryauth

cmd_registry() {
  case ${1:-ls} in
    ls) rp::http GET "/$REG_PATH" | jq -r '.[] | "\(.id)\t\(.name)"' ;;
    add)
      local body
      body=$(printf '{"name":"%s","username":"%s","password":"%s"}' "$2" "$3" "$4")
      rp::http POST "/$REG_PATH" "$body"
      ;;
    rm) rp::http DELETE "/$REG_PATH/$2" ;;
  esac
}
