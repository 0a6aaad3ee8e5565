/**
 * What a config string names, as JSON Schema metadata (`x-refers-to`) for editors: the graph editor
 * completes such a value with the spec's node names, its state fields, its subgraphs or the app's agents.
 * The compiler checks the names itself; this only tells a reader of the schema what they are.
 */
export type SpecRefKind = "node" | "state_field" | "subgraph" | "agent";

export const refersTo = (kind: SpecRefKind) => ({ "x-refers-to": kind });
