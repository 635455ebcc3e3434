#!/usr/bin/env bash
# Count how often each word occurs in a text and print the most common ones.
# Usage: wordfreq.sh [FILE]   (reads standard input without a file)
set -euo pipefail

readonly LIMIT=10

usage() {
    echo "usage: ${0##*/} [FILE]" >&2
    exit 2
}

main() {
    (( $# <= 1 )) || usage
    local input="${1:-/dev/stdin}"
    if [[ ! -r "$input" ]]; then
        echo "wordfreq: cannot read $input" >&2
        exit 1
    fi

    # One lower-cased word per line: runs of letters, everything else separates them.
    local words
    words=$(tr -cs '[:alpha:]' '\n' < "$input" | tr '[:upper:]' '[:lower:]' | sed '/^$/d')

    local total=0 distinct=0
    if [[ -n "$words" ]]; then
        total=$(wc -l <<< "$words")
        distinct=$(sort -u <<< "$words" | wc -l)
    fi
    printf '%d words, %d distinct\n' "$total" "$distinct"
    (( total > 0 )) || return 0

    # The most frequent words, ties broken alphabetically.
    sort <<< "$words" | uniq -c | sort -k1,1nr -k2,2 | head -n "$LIMIT" |
        while read -r count word; do
            printf '%-15s %6d %6.2f%%\n' "$word" "$count" "$(bc -l <<< "100 * $count / $total")"
        done
}

main "$@"
