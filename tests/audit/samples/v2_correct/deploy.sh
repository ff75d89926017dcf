#!/bin/sh
# v2 only (the v1 call was: curl https://rest.runpod.io/v1/pods)
BASE=https://api.runpod.io/v2
curl -s -H "Authorization: Bearer $KEY" "$BASE/pods"
curl -s -X POST "$BASE/pods/$POD_ID/action" -d '{"action":"start"}'
curl -s -X POST "https://api.runpod.ai/v2/$ENDPOINT_ID/runsync" -d '{"input":{}}'
