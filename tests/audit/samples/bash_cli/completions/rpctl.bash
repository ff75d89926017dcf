# bash completion for rpctl
_rpctl() {
  local cur="${COMP_WORDS[COMP_CWORD]}" group="${COMP_WORDS[1]:-}"
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "pods templates endpoints volumes registry billing jobs doctor help" -- "$cur"))
    return
  fi
  case "$group" in
    pods) COMPREPLY=($(compgen -W "list get create start stop restart reset wait rename rm" -- "$cur")) ;;
    templates) COMPREPLY=($(compgen -W "list create set-image rm" -- "$cur")) ;;
    endpoints) COMPREPLY=($(compgen -W "list scale create rm" -- "$cur")) ;;
    volumes|registry) COMPREPLY=($(compgen -W "list create add rm" -- "$cur")) ;;
    billing) COMPREPLY=($(compgen -W "pods endpoints" -- "$cur")) ;;
  esac
}
complete -F _rpctl rpctl
