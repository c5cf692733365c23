#!/usr/bin/env bash
# The run command: installs what is missing, builds a release binary, indexes the bundled
# sample catalog and answers suggestions. Extra arguments are typed into the search field:
#   scripts/run.sh "red sh"      # one query
#   scripts/run.sh               # interactive: type a query per line
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --product typeahead >&2
bin="$(swift build -c release --show-bin-path)/typeahead"
dir="${TYPEAHEAD_DATA:-.build/sample-shard}"
"$bin" index --catalog deploy/catalog/sample.jsonl --dir "$dir" >&2
if [ $# -gt 0 ]; then
  exec "$bin" suggest --dir "$dir" "$*"
fi
echo "Type a query (Ctrl-D to quit). Try: 'red sh', 'gard', 'kitchen tow'" >&2
exec "$bin" suggest --dir "$dir" --interactive
