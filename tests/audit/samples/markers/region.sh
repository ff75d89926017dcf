#!/bin/sh
# rp-migrate: keep-v1 start
curl -s "https://rest.runpod.io/v1/pods/$ID/reset" -X POST
curl -s "https://rest.runpod.io/v1/endpoints"
# rp-migrate: keep-v1 end
