/**
 * Every error the engine raises. Two families that must never be confused:
 * - `GraphBubbleUp`: cooperative control flow (interrupt, drain). Not failures; the engine
 *   never swallows them and callers must let them propagate.
 * - `GraphError`: real failures, each with a literal `code`.
 */

export const GRAPH_ERROR_CODES = {
  TOPOLOGY: "GRAPH_TOPOLOGY",
  ROUTING: "GRAPH_ROUTING",
  RECURSION: "GRAPH_RECURSION",
  INVOCATION_STATE: "GRAPH_INVOCATION_STATE",
  INSTANCE_STATE: "GRAPH_INSTANCE_STATE",
  INSTANCE_NOT_FOUND: "GRAPH_INSTANCE_NOT_FOUND",
  STATE_VALIDATION: "GRAPH_STATE_VALIDATION",
  CONFIG: "GRAPH_CONFIG",
  SUBGRAPH: "GRAPH_SUBGRAPH",
  NODE_TIMEOUT: "GRAPH_NODE_TIMEOUT",
} as const;

export type GraphErrorCode = (typeof GRAPH_ERROR_CODES)[keyof typeof GRAPH_ERROR_CODES];

export abstract class GraphError extends Error {
  abstract readonly code: GraphErrorCode;
}

export interface TopologyIssue {
  readonly kind:
    | "duplicate_node"
    | "unknown_node"
    | "unreachable_node"
    | "end_unreachable"
    | "reserved_name"
    | "invalid_edge";
  readonly node?: string;
  readonly message: string;
}

export class TopologyError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.TOPOLOGY;
  constructor(readonly issues: readonly TopologyIssue[]) {
    super(`invalid graph topology: ${issues.map((i) => i.message).join("; ")}`);
    this.name = "TopologyError";
  }
}

export class DeliverRoutingError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.ROUTING;
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(message);
    this.name = "DeliverRoutingError";
  }
}

export class GraphRecursionError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.RECURSION;
  constructor(readonly maxIterations: number) {
    super(`graph exceeded maxIterations (${maxIterations} node executions)`);
    this.name = "GraphRecursionError";
  }
}

/**
 * A node wrote a value of the wrong type to a typed state field: the state would no longer load.
 * `node` names the node whose completion found it (absent for a stored state refused on load).
 */
export class StateValidationError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.STATE_VALIDATION;
  constructor(
    readonly field: string,
    message: string,
    readonly node?: string,
  ) {
    super(message);
    this.name = "StateValidationError";
  }
}

export class InvocationStateError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.INVOCATION_STATE;
  constructor(
    readonly invocationId: string,
    readonly expected: string,
    readonly actual: string | undefined,
  ) {
    super(`invocation ${invocationId} is ${actual ?? "missing"}, expected ${expected}`);
    this.name = "InvocationStateError";
  }
}

export class InstanceStateError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.INSTANCE_STATE;
  constructor(
    readonly instanceId: string,
    readonly from: string,
    readonly to: string,
  ) {
    super(`instance ${instanceId} cannot go from ${from} to ${to}`);
    this.name = "InstanceStateError";
  }
}

export class InstanceNotFoundError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.INSTANCE_NOT_FOUND;
  constructor(readonly instanceId: string) {
    super(`graph instance ${instanceId} not found`);
    this.name = "InstanceNotFoundError";
  }
}

export class SubgraphError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.SUBGRAPH;
  constructor(readonly node: string) {
    super(`subgraph "${node}" finished without reaching its END`);
    this.name = "SubgraphError";
  }
}

export class GraphConfigError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.CONFIG;
  constructor(message: string) {
    super(message);
    this.name = "GraphConfigError";
  }
}

/** Base of cooperative control signals. Never caught and dropped by the engine. */
export abstract class GraphBubbleUp extends Error {
  abstract readonly kind: "interrupt" | "drained";

  constructor(message: string) {
    // Control flow, not a failure: collecting a stack would cost more than the rest of an interrupt.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** Raised by `ctx.interrupt(value)`: the run suspends; `value` tells the outside world why. */
export class GraphInterrupt<V = unknown> extends GraphBubbleUp {
  readonly kind = "interrupt" as const;
  constructor(
    readonly value: V,
    readonly node: string,
  ) {
    super(`graph interrupted at ${node}`);
    this.name = "GraphInterrupt";
  }
}

export type DrainReason = "pause" | "stop";

/** Raised at a scheduler safe point after a pause/stop request, once progress is persisted. */
export class GraphDrained extends GraphBubbleUp {
  readonly kind = "drained" as const;
  constructor(
    readonly reason: DrainReason,
    /** Node instances that were still running when the request was seen; they finished first. */
    readonly finishing: readonly string[] = [],
  ) {
    super(`graph drained for ${reason}`);
    this.name = "GraphDrained";
  }
}

export const isGraphBubbleUp = (e: unknown): e is GraphBubbleUp => e instanceof GraphBubbleUp;
export const isGraphInterrupt = (e: unknown): e is GraphInterrupt => e instanceof GraphInterrupt;
export const isGraphDrained = (e: unknown): e is GraphDrained => e instanceof GraphDrained;
export const isGraphError = (e: unknown): e is GraphError => e instanceof GraphError;
export const isInvocationStateError = (e: unknown): e is InvocationStateError =>
  e instanceof InvocationStateError;
export const isInstanceStateError = (e: unknown): e is InstanceStateError =>
  e instanceof InstanceStateError;
export const isGraphRecursionError = (e: unknown): e is GraphRecursionError => e instanceof GraphRecursionError;

/** A node ran past its `timeout`: the engine stopped waiting for it (a retry policy may run it again). */
export class NodeTimeoutError extends GraphError {
  readonly code = GRAPH_ERROR_CODES.NODE_TIMEOUT;
  constructor(
    readonly node: string,
    readonly timeoutMs: number,
  ) {
    super(`node ${node} timed out after ${timeoutMs} ms`);
    this.name = "NodeTimeoutError";
  }
}
