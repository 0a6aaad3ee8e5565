/**
 * The keys of a graph spec (docs/spec-format.md) with their documentation, for the editor's completion and
 * hover, which must work before any request returns. The spec's zod schemas (server/graph/spec/graph-spec.ts)
 * are the source: these lists are copies of their JSON Schema's keys and descriptions, and
 * server/services/graph-spec-keys.test.ts fails when the two drift apart. Node types and their config keys
 * are the server's to say (GET /api/graphs/node-types): the app registers types of its own.
 */

export interface SpecKey {
  name: string;
  description: string;
  /** The values it may take when they are a short list. */
  values?: readonly string[];
  /** A key whose value is written as an indented block: a list (`- …`) or a map. */
  block?: "list" | "map";
}

/** The names of the graph's entry and exit nodes (server/graph/names.ts), which edges and routes may name. */
export const SPEC_START = "__start__";
export const SPEC_END = "__end__";

export const TOP_LEVEL_KEYS: readonly SpecKey[] = [
  { name: "name", description: "Name of the graph; specs are stored and listed by name." },
  { name: "version", description: "Display label of this revision (not a lookup key)." },
  { name: "description", description: "What the graph does." },
  { name: "scheduler", description: "linear (default): one node at a time. parallel: fan-out branches run concurrently.", values: ["linear", "parallel"] },
  { name: "max_iterations", description: "Panic net: node executions per run before the run fails (default 10,000)." },
  { name: "nodes", block: "list", description: "The graph's nodes (START and END are implicit): a list of { name, node_type, config }, or a map name → { node_type, config }." },
  { name: "edges", block: "list", description: "Topology edges as { from, to }. Use __start__ for the entry and __end__ for the exit." },
  { name: "state", block: "map", description: "The graph state: field name → { type, default, description }. Nodes read and write it by name." },
  { name: "defaults", block: "map", description: "Defaults for every node (a node's own `retry` / `timeout_ms` replaces them)." },
  { name: "subgraphs", block: "map", description: "Named inline graphs, referenced by `subgraph` nodes as config.spec." },
  { name: "schedules", block: "list", description: "Cron schedules that start runs of this spec (optional; see the Triggers section of the README)." },
];

export const NODE_KEYS: readonly SpecKey[] = [
  { name: "name", description: "Unique node name; edges and routing refer to it." },
  { name: "node_type", description: "What the node is: one of the node types the server knows (function, delay, agent, …); it decides the keys of `config`." },
  { name: "description", description: "What the node is for (shown in the editor and the instance view)." },
  { name: "trigger", description: "When the node starts: ON_ALL_PREDS waits until every activated predecessor that could still reach it has delivered. (ON_RECEIVE is rejected.)", values: ["ON_ALL_PREDS"] },
  { name: "retry", block: "map", description: "Retry a failing node: a new attempt (its own invocation) with the same inputs after a backoff." },
  { name: "timeout_ms", description: "Stop waiting for the node after this many ms: it fails with a timeout (which `retry` may retry)." },
  { name: "config", description: "The node's settings; which keys it takes depends on `node_type`.", block: "map" },
];

export const EDGE_KEYS: readonly SpecKey[] = [
  { name: "from", description: "Source node name (__start__ and __end__ are the entry and exit)." },
  { name: "to", description: "Target node name (__start__ and __end__ are the entry and exit)." },
];

export const STATE_FIELD_KEYS: readonly SpecKey[] = [
  { name: "type", description: "Value type of the field: string, number, boolean, array, object or any.", values: ["string", "number", "boolean", "array", "object", "any"] },
  { name: "default", description: "Initial value. Without one: \"\", 0, false, [], {} or null by type." },
  { name: "description", description: "What the field holds (shown in the editor)." },
];

export const RETRY_KEYS: readonly SpecKey[] = [
  { name: "max_attempts", description: "Executions in all, the first included (1: no retry)." },
  { name: "initial_interval_ms", description: "Wait before the second attempt, in ms (default 1,000)." },
  { name: "backoff", description: "Each wait is the last one times this (default 2)." },
  { name: "max_interval_ms", description: "Longest wait between attempts, in ms (default 60,000)." },
  { name: "retry_on", description: "Retry only errors whose message contains one of these (e.g. \"timed out\", \"ECONNRESET\"); default: every error." },
];

export const DEFAULTS_KEYS: readonly SpecKey[] = [
  { name: "retry", block: "map", description: "Retry a failing node: a new attempt (its own invocation) with the same inputs after a backoff." },
  { name: "timeout_ms", description: "Stop waiting for the node after this many ms: it fails with a timeout (which `retry` may retry)." },
];

export const SUBGRAPH_KEYS: readonly SpecKey[] = [
  { name: "description", description: "What the graph does." },
  { name: "scheduler", description: "linear (default): one node at a time. parallel: fan-out branches run concurrently.", values: ["linear", "parallel"] },
  { name: "max_iterations", description: "Panic net: node executions per run before the run fails (default 10,000)." },
  { name: "nodes", block: "list", description: "The graph's nodes (START and END are implicit): a list of { name, node_type, config }, or a map name → { node_type, config }." },
  { name: "edges", block: "list", description: "Topology edges as { from, to }. Use __start__ for the entry and __end__ for the exit." },
];

export const SCHEDULE_KEYS: readonly SpecKey[] = [
  { name: "name", description: "Unique among all schedules of the app." },
  { name: "cron", description: "Cron expression: `m h dom mon dow`, or with seconds first; e.g. `0 9 * * 1-5`." },
  { name: "timezone", description: "IANA time zone of the cron expression (default UTC)." },
  { name: "input", description: "The input of each run it starts." },
  { name: "overlap", description: "When the previous run it started is still going: skip this fire, allow both, or cancel_previous (stop it, then start).", values: ["skip", "allow", "cancel_previous"] },
  { name: "missed", description: "Fires due while no server ran: skip them, or run_once (one run at start-up for all of them).", values: ["skip", "run_once"] },
  { name: "paused", description: "Declared paused: stored, shown, does not fire until resumed.", values: ["true", "false"] },
];
