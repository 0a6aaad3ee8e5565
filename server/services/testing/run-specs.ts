/** Small graphs the tests run many times: over REST (e2e) and against the services (Vitest). */

/** A graph of one template node: a run of it completes at once, its output "got <input>". */
export const quickSpec = (name: string) => `name: ${name}
version: "1"
nodes:
  - { name: echo, node_type: function, config: { op: template, template: "got {{input}}" } }
edges:
  - { from: __start__, to: echo }
  - { from: echo, to: __end__ }
`;

/** A graph of one delay node: a run of it is running for `ms` (a running run cannot be deleted). */
export const slowSpec = (name: string, ms = 60_000) => `name: ${name}
version: "1"
nodes:
  - { name: nap, node_type: delay, config: { ms: ${ms} } }
edges:
  - { from: __start__, to: nap }
  - { from: nap, to: __end__ }
`;
