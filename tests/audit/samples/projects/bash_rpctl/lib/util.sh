# shellcheck shell=bash
# small helpers shared by the commands

rp::require() {
  command -v "$1" >/dev/null 2>&1 || rp::die "$1 is required"
}

rp::table() { column -t -s $'\t'; }

# GET a billing report; $2 is an optional query string
_billing() {
  local q=${2:+?$2}
  rp::http GET "$1$q"
}
