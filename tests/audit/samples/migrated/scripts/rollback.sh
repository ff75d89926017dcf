#!/bin/sh
# Emergency rollback to the v1 API while the proxy is being retired.
# v1bridge: keep-v1 start
V1="https://rest.runpod.io/v1"
curl -s -X POST "$V1/pods/$POD_ID/stop"
# v1bridge: keep-v1 end
