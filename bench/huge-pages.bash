# Sourced by bench/peers and bench/tpcc: PostgreSQL's shared memory on
# huge pages, when the bench can reserve them (root).
#
# Each PostgreSQL backend is a process that maps the shared buffers. On a
# machine whose page tables are costly to fill (a PVM guest here), small
# pages made the server itself collapse with connections: pgbench -S at
# 250 clients did 2,144 tps at 28 page faults per transaction, and 14,131
# at 3 on huge pages (docs/performance-notes.md, "PostgreSQL on huge
# pages").
#
# reserve_huge_pages NAME CONNECTIONS: reserves twice what the server takes
# at CONNECTIONS (64 pages of 2 MB for the 128 MB of shared buffers, and
# 32 more per 1,100 connections) and, when that much is free, exports
# PG_HUGE_PAGES=on, which deploy/local/postgres.sh passes on as
# huge_pages=on (so the start fails rather than falling back). Otherwise
# NAME says on stderr that PostgreSQL runs on small pages.
# restore_huge_pages: gives the pages back (call it on exit).
reserve_huge_pages() {
  local name=$1 need=$((64 + $2 * 32 / 1100 + 8)) free
  [ -w /proc/sys/vm/nr_hugepages ] || { echo "$name: PostgreSQL on small pages (not root)" >&2; return 0; }
  huge_before=$(cat /proc/sys/vm/nr_hugepages)
  [ "$huge_before" -ge $((2 * need)) ] || echo $((2 * need)) >/proc/sys/vm/nr_hugepages
  free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
  if [ "$free" -ge "$need" ]; then
    export PG_HUGE_PAGES=on
  else
    echo "$name: PostgreSQL on small pages (only $free huge pages free, $need needed)" >&2
  fi
}
restore_huge_pages() {
  [ -z "${huge_before:-}" ] || echo "$huge_before" >/proc/sys/vm/nr_hugepages
}
