#!/bin/sh
# `npm run start`: this process's role comes from MODEX_ROLE (see the README, "PostgreSQL and several
# processes"). all (default) and web: the Next.js server (server.mjs); worker: a worker, whose only HTTP is its health
# check, on the port given with -p / --port (or MODEX_WORKER_HEALTH_PORT). `exec`: signals reach the server.
if [ "$MODEX_ROLE" = "worker" ]; then
  while [ $# -gt 0 ]; do
    case "$1" in
      -p|--port) MODEX_WORKER_HEALTH_PORT="$2"; export MODEX_WORKER_HEALTH_PORT; shift ;;
      --port=*) MODEX_WORKER_HEALTH_PORT="${1#--port=}"; export MODEX_WORKER_HEALTH_PORT ;;
    esac
    shift
  done
  exec node --import tsx server/cluster/worker-main.ts
fi
NEXT_TELEMETRY_DISABLED=1 exec node server.mjs "$@"
