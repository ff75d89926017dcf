#!/usr/bin/env bash
source "$(dirname "$0")/../lib/http.sh"
# rp::http GET /templates  <- comment
template::list() { rp::http GET /templates; }
template::rm() { rp::http DELETE "/templates/$1"; }
template::stop_all() { for id in $(rp::http GET /pods | jq -r '.[].id'); do rp::http POST "/pods/$id/stop"; done; }
