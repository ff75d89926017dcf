#!/bin/sh
# Reset a pod (v1).  was: curl .../pods/$ID/restart
curl -s -X POST -H "Authorization: Bearer $KEY" "https://rest.runpod.io/v1/pods/$POD_ID/reset"
curl -s "https://rest.runpod.io/v1/networkvolumes"
