#!/bin/sh
# podResume via GraphQL
curl -s "https://api.runpod.io/graphql?api_key=$RUNPOD_API_KEY" -H 'Content-Type: application/json' \
  -d "{\"query\": \"mutation { podResume(input: {podId: \\\"$1\\\", gpuCount: 1}) { id } }\"}"
