# shellcheck shell=bash
# rpctl version: prints the CLI version and checks GitHub for a newer release

RPCTL_VERSION=0.4.2

cmd_version() {
  echo "rpctl $RPCTL_VERSION"
  latest=$(curl -fsS https://api.github.com/repos/example/rpctl/releases/latest | jq -r .tag_name) || return 0
  [[ $latest != "v$RPCTL_VERSION" ]] && echo "a newer rpctl is out: $latest"
  return 0
}
