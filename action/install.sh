#!/usr/bin/env bash
# Step "Install cfnops" of action.yml.
set -euo pipefail
case "${CFNOPS_INSTALL:-action}" in
  none) command -v cfnops >/dev/null || { echo "install: none, and no cfnops on PATH" >&2; exit 2; } ;;
  action) python -m pip install --quiet "${GITHUB_ACTION_PATH:?}[sam]" ;;
  *) python -m pip install --quiet "$CFNOPS_INSTALL" ;;
esac
cfnops --version
