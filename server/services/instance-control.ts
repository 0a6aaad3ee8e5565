import type { GraphControlService } from "./graph-control-service";

/**
 * The control plane's commands as the API calls them. GraphControlService runs them against runs in
 * this process (SQLite, or `all` on one machine); ClusterGraphControl (server/cluster) commits them as
 * jobs for the workers of a PostgreSQL cluster. Same answers, same refusals.
 */
export type InstanceControl = Pick<
  GraphControlService,
  "pause" | "stop" | "resume" | "setBreakpoints" | "answer" | "decide" | "reinvoke" | "recover" | "deliver" | "archive" | "delete"
>;
