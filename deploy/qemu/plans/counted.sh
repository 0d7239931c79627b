#!/bin/bash
# Sourced by the plans that run a JUnit suite in the guest.
# counted <report dir> <allowed-skips regex> <test sources...>: the suite's report shows every test method declared in
# those sources ran, none failed or erred, and every skip (an assumption that failed) has a reason the regex allows.
# A broken build or classpath cannot pass: no report, or fewer methods ran than are declared.
counted() {
  local xml=$OUT/reports/$1/TEST-junit-jupiter.xml allowed=$2 declared ran bad; shift 2
  [ -s "$xml" ] || { echo "no JUnit report $xml"; return 1; }
  declared=$(cat "$@" | grep -cE '^\s*@(Test|ParameterizedTest)\b')
  ran=$(sed -n 's/.*<testcase name="\([^"(]*\)([^"]*" classname="\([^"]*\)".*/\2#\1/p' "$xml" | sort -u | wc -l)
  echo "test methods declared: $declared; ran: $ran"
  grep -o '<testsuite [^>]*>' "$xml"
  grep -q '<testsuite [^>]* failures="0" errors="0"' "$xml" || { echo "failures or errors in $xml"; return 1; }
  [ "$declared" -gt 0 ] && [ "$ran" = "$declared" ] || { echo "not every declared test method ran"; return 1; }
  bad=$(grep -A1 '<skipped' "$xml" | sed -n 's/.*Assumption failed: //p' | grep -vE "$allowed")
  [ -z "$bad" ] || { echo "skips without an allowed reason:"; echo "$bad"; return 1; }
}
