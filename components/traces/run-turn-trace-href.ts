/** Where the trace of one agent turn of a graph run opens (the Traces page, its run-turn source). */
export function runTurnTraceHref(instanceId: string, node: string, turnId: string): string {
  return `/traces?instance=${encodeURIComponent(instanceId)}&node=${encodeURIComponent(node)}&turn=${encodeURIComponent(turnId)}`;
}
