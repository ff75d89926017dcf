#!/bin/sh
curl -s -X POST -H "Authorization: Bearer $KEY" -d '{"action":"restart"}' "https://api.runpod.io/v2/pods/$POD_ID/action"
curl -s "https://api.runpod.io/v2/network-volumes"
