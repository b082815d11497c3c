// The scripts `tensorops completion bash|zsh|fish` prints. bash and zsh: as yargs writes them
// for this CLI. yargs picks its template from $SHELL when a parser is made, and has no way to ask
// for the other one: these are its templates with the CLI's name filled in (completion.test.ts
// holds them to yargs' own output). yargs has no fish template: that one is the CLI's own. Each
// script asks the CLI for candidates with --get-yargs-completions (args/completion.ts).

export const BASH_COMPLETION = `###-begin-tensorops-completions-###
#
# yargs command completion script
#
# Installation: tensorops completion >> ~/.bashrc
#    or tensorops completion >> ~/.bash_profile on OSX.
#
_tensorops_yargs_completions()
{
    local cur_word args type_list

    cur_word="\${COMP_WORDS[COMP_CWORD]}"
    args=("\${COMP_WORDS[@]}")

    # ask yargs to generate completions.
    # see https://stackoverflow.com/a/40944195/7080036 for the spaces-handling awk
    mapfile -t type_list < <(tensorops --get-yargs-completions "\${args[@]}")
    mapfile -t COMPREPLY < <(compgen -W "$( printf '%q ' "\${type_list[@]}" )" -- "\${cur_word}" |
        awk '/ / { print "\\""$0"\\"" } /^[^ ]+$/ { print $0 }')

    # if no match was found, fall back to filename completion
    if [ \${#COMPREPLY[@]} -eq 0 ]; then
      COMPREPLY=()
    fi

    return 0
}
complete -o bashdefault -o default -F _tensorops_yargs_completions tensorops
###-end-tensorops-completions-###
`;

export const ZSH_COMPLETION = `#compdef tensorops
###-begin-tensorops-completions-###
#
# yargs command completion script
#
# Installation: tensorops completion >> ~/.zshrc
#    or tensorops completion >> ~/.zprofile on OSX.
#
_tensorops_yargs_completions()
{
  local reply
  local si=$IFS
  IFS=$'\n' reply=($(COMP_CWORD="$((CURRENT-1))" COMP_LINE="$BUFFER" COMP_POINT="$CURSOR" tensorops --get-yargs-completions "\${words[@]}"))
  IFS=$si
  if [[ \${#reply} -gt 0 ]]; then
    _describe 'values' reply
  else
    _default
  fi
}
if [[ "\${zsh_eval_context[-1]}" == "loadautofunc" ]]; then
  _tensorops_yargs_completions "$@"
else
  compdef _tensorops_yargs_completions tensorops
fi
###-end-tensorops-completions-###
`;

// fish: the words before the cursor and the one being typed, as yargs takes them; fish adds
// file names itself (no -f), for the operands that are paths.
export const FISH_COMPLETION = `###-begin-tensorops-completions-###
#
# tensorops command completion script for fish
#
# Installation: tensorops completion fish > ~/.config/fish/completions/tensorops.fish
#
function __tensorops_completions
    tensorops --get-yargs-completions (commandline -opc) (commandline -ct)
end
complete -c tensorops -a '(__tensorops_completions)'
###-end-tensorops-completions-###
`;
