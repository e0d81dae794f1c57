#!/usr/bin/env bash
# Step "Check templates" of action.yml: diff and/or guard, a Markdown report and SARIF files
# under $RUNNER_TEMP/cfnops, outputs report/sarif/exit-code. Never fails itself: the last
# step of the action turns exit-code into the job's result (after SARIF and the comment).
set -uo pipefail
out="${RUNNER_TEMP:-/tmp}/cfnops"
rm -rf "$out" && mkdir -p "$out/sarif"
report="$out/report.md"
status=0
worst() { if [ "$1" -gt "$status" ]; then status=$1; fi; }

base="${INPUT_BASE_REF:-}"
if [ -z "$base" ] && [ -n "${GITHUB_BASE_REF:-}" ]; then base="origin/$GITHUB_BASE_REF"; fi
if [ -z "$base" ]; then base="HEAD~1"; fi

templates=()
if [ -n "${INPUT_TEMPLATES:-}" ]; then
  shopt -s globstar nullglob
  for pattern in $INPUT_TEMPLATES; do
    for f in $pattern; do templates+=("$f"); done
  done
  shopt -u globstar nullglob
elif [ -z "${INPUT_ASSEMBLY:-}" ]; then
  while IFS= read -r -d '' f; do templates+=("$f"); done < <(
    git diff -z --name-only --diff-filter=AMR "$base...HEAD" -- \
      '*.yaml' '*.yml' '*.json' '*.template' 2>/dev/null || true)
fi

gate=()
if [ "${INPUT_FAIL_ON:-replace}" != "none" ]; then gate=(--fail-on "${INPUT_FAIL_ON:-replace}"); fi
mode="${INPUT_MODE:-diff}"
echo "<!-- cfnops-report -->" > "$report"

if [ "$mode" = "diff" ] || [ "$mode" = "both" ]; then
  if [ -n "${INPUT_ASSEMBLY:-}" ]; then
    args=("${INPUT_BASE_ASSEMBLY:?base-assembly is needed with assembly}" "$INPUT_ASSEMBLY")
  elif [ "${#templates[@]}" -gt 0 ]; then
    args=(--git-ref "$base" "${templates[@]}")
  else
    args=()
    echo "No CloudFormation template changed." >> "$report"
  fi
  if [ "${#args[@]}" -gt 0 ]; then
    cfnops diff "${args[@]}" -o sarif > "$out/sarif/diff.sarif"; worst $?
    cfnops diff "${args[@]}" -o markdown "${gate[@]}" >> "$report"; worst $?
  fi
fi

if [ "$mode" = "guard" ] || [ "$mode" = "both" ]; then
  exercise=()
  if [ "${INPUT_GUARD_EXERCISE:-false}" = "true" ]; then exercise=(--exercise); fi
  i=0
  for t in "${templates[@]}"; do
    i=$((i + 1))
    cfnops guard "$t" "${exercise[@]}" -o sarif > "$out/sarif/guard-$i.sarif" 2>>"$out/guard.log"
    code=$?
    if [ "$code" -eq 2 ]; then rm -f "$out/sarif/guard-$i.sarif"; continue; fi  # not a template
    worst $code
    if [ "$code" -ne 0 ]; then
      { echo; echo "### cfnops guard: $t"; echo; echo '```'; cfnops guard "$t" "${exercise[@]}" 2>&1; echo '```'; } >> "$report"
    fi
  done
fi

# job-net tests: each NAME.mocks.json (whitespace-separated paths or globs) beside its
# NAME.asl.json, a JUnit XML report per file under $out/junit
if [ -n "${INPUT_JOB_TESTS:-}" ]; then
  mkdir -p "$out/junit"
  shopt -s globstar nullglob
  for pattern in $INPUT_JOB_TESTS; do
    for mocks in $pattern; do
      definition="${mocks%.mocks.json}.asl.json"
      name="$(basename "${mocks%.mocks.json}")"
      {
        echo; echo "### cfnops job test: $definition"; echo; echo '```'
        cfnops job test "$definition" --mocks "$mocks" --junit "$out/junit/$name.xml" 2>&1
        code=$?
        echo '```'
      } >> "$report"
      worst "$code"
    done
  done
  shopt -u globstar nullglob
fi

# one run per tool, each with its own category (GitHub rejects several runs of one tool)
python "$(dirname "${BASH_SOURCE[0]}")/merge_sarif.py" "$out/sarif" || worst 2

{
  echo "report=$report"
  if ls "$out/sarif"/*.sarif >/dev/null 2>&1; then echo "sarif=$out/sarif"; else echo "sarif="; fi
  if [ -d "$out/junit" ]; then echo "junit=$out/junit"; else echo "junit="; fi
  echo "exit-code=$status"
} >> "${GITHUB_OUTPUT:-/dev/null}"
echo "cfnops: exit code $status, report $report"
exit 0
