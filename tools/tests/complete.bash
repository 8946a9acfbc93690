# shellcheck shell=bash
# The host tests' way into a bash completion (t-completion.sh):
#   bash complete.bash FILE WORD...
# loads FILE, completes the last WORD of the command line WORD... (the
# cursor at its end) as bash would call the function FILE registers,
# and prints the replies one a line. Readline's word breaks are left
# out: --opt=value is one word. No set -u: an interactive shell has
# none.
file=$1
shift
# shellcheck disable=SC1090 # the file under test
. "$file" || exit 1
spec=$(complete -p "$1") || exit 1
fn=${spec#*-F }
fn=${fn%% *}
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
COMPREPLY=()
"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]:-}" 2>/dev/null
for w in "${COMPREPLY[@]}"; do
	printf '%s\n' "$w"
done
