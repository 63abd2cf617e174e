#!/usr/bin/env bash
# Runs one integration test so that nothing it started outlives it.
#   run_test.sh TIMEOUT_S SCRIPT [ARGS...]
#
# First it sweeps what earlier tests left behind when they were killed
# before their own cleanup could run: every process tied to the temp dir of
# a test that is gone (tests/lib.sh writes the test's pid there): its
# environment carries STAMPEDE_TEST_TMP=<dir> (tests/lib.sh exports it), or
# its working directory or command line is in the dir (servers that rewrite
# their process title, as Redis and PostgreSQL do, lose the environment
# but run in their data directory there); and the tmpfs mounts and network
# namespaces, CPU cgroups (and the containers' init processes) the test recorded in its dir. Then it runs the test under `timeout`, which
# sends SIGTERM to the test's whole process group before ctest's own
# timeout: the test's EXIT trap stops its servers and daemons, and what
# does not stop within 60 s is killed.
set -uo pipefail
limit=${1:?TIMEOUT_S}
shift

belongs() {  # /proc/PID DIR
  local cwd
  cwd=$(readlink "$1/cwd" 2>/dev/null) || return 1
  case "$cwd/" in "$2"/*) return 0 ;; esac
  { tr '\0' '\n' <"$1/environ"; } 2>/dev/null | grep -qx "STAMPEDE_TEST_TMP=$2" && return 0
  { tr '\0' ' ' <"$1/cmdline"; } 2>/dev/null | grep -qF "$2/"
}

sweep() {
  local d owner p
  for d in /tmp/stampede-test.*; do
    [ -d "$d" ] && [ ! -e "$d/.swept" ] || continue
    owner=$(cat "$d/.owner" 2>/dev/null) || continue
    kill -0 "$owner" 2>/dev/null && continue  # its test is still running
    for p in /proc/[0-9]*; do
      if belongs "$p" "$d"; then
        echo "run_test: killing ${p#/proc/} ($( { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | cut -c1-80)) left by $d" >&2
        kill -CONT "${p#/proc/}" 2>/dev/null
        kill -9 "${p#/proc/}" 2>/dev/null
      fi
    done
    if [ -f "$d/.mounts" ]; then
      while read -r m; do umount -l "$m" 2>/dev/null; done <"$d/.mounts"
    fi
    # Init processes of containers the test booted (its environment and
    # working directory are the container's own, so only the record finds
    # it): killing a PID namespace's init kills everything in it.
    if [ -f "$d/.containers" ]; then
      while read -r c start; do
        [ "$(cut -d' ' -f22 "/proc/$c/stat" 2>/dev/null)" = "$start" ] && kill -9 "$c" 2>/dev/null
      done <"$d/.containers"
    fi
    # Mounts under the test's dir (a container's overlay root, a tmpfs).
    awk -v d="$d/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
    # CPU-limited cgroups the test made (empty once its processes are gone).
    if [ -f "$d/.cgroups" ]; then
      while read -r g; do rmdir "$g" 2>/dev/null; done <"$d/.cgroups"
    fi
    if [ -f "$d/.netns" ]; then
      while read -r n; do ip netns del "$n" 2>/dev/null; done <"$d/.netns"
    fi
    touch "$d/.swept"
  done
  # Ports claimed by tests that are gone (tests/lib.sh's claim_port). A
  # claim without its owner yet is being made: it stays.
  for d in /tmp/stampede-ports/*/; do
    owner=$(cat "$d/owner" 2>/dev/null) || continue
    kill -0 "$owner" 2>/dev/null || rm -rf "$d"
  done
}

sweep
timeout --kill-after=60 "$limit" bash "$@"
rc=$?
[ $rc -eq 124 ] && echo "run_test: $1 timed out after ${limit} s (its cleanup ran)" >&2
exit $rc
