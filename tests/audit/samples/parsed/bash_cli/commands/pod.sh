#!/usr/bin/env bash
source "$(dirname "$0")/../lib/http.sh"

pod::get() { rp::http GET "/pods/$1" | jq '{id, desiredStatus, costPerHr}'; }
pod::list() { rp::http GET "/pods" | jq -r '.[] | "\(.id) \(.desiredStatus)"'; }
pod::action() {
  local id="$1" action="$2"
  rp::http POST "/pods/$id/$action"
}
pod::create() {
  local body
  body=$(jq -n --arg img "$1" '{name: "cli", imageName: $img, gpuTypeIds: ["NVIDIA A40"], gpuCount: 1}')
  rp::http POST /pods "$body"
}
pod::rm() {
  local path="/pods/$1"
  rp::http DELETE "$path"
}
