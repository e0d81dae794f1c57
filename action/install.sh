#!/usr/bin/env bash
# Step "Install cfnops" of action.yml.
set -euo pipefail
case "${CFNOPS_INSTALL:-action}" in
  none) command -v cfnops >/dev/null || { echo "install: none, and no cfnops on PATH" >&2; exit 2; } ;;
  action)
    extras=sam
    if [ "${INPUT_GUARD_EXERCISE:-false}" = "true" ]; then extras=sam,sandbox; fi
    python -m pip install --quiet "${GITHUB_ACTION_PATH:?}[$extras]" ;;
  *) python -m pip install --quiet "$CFNOPS_INSTALL" ;;
esac
cfnops --version
