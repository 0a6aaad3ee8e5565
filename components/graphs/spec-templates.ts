/** Starting points for "New graph": small, valid specs that show the format. */

export interface SpecTemplate {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  yaml(name: string): string;
}

export const SPEC_TEMPLATES: readonly SpecTemplate[] = [
  {
    id: "pipeline",
    title: "Pipeline",
    description: "Three function steps in a row: the smallest graph that does something.",
    yaml: (name) => `name: ${name}
version: "1"
description: Greets the input, shouts it, then reports its length.

nodes:
  - name: greet
    node_type: function
    config: { op: template, template: "Hello, {{input}}!" }

  - name: shout
    node_type: function
    config: { op: map, fn: upper }

  - name: report
    node_type: function
    config: { op: template, template: "{{input}}" }

edges:
  - { from: __start__, to: greet }
  - { from: greet, to: shout }
  - { from: shout, to: report }
  - { from: report, to: __end__ }
`,
  },
  {
    id: "approval",
    title: "Human approval",
    description: "Drafts a request, waits for a person to answer, then branches on the answer.",
    yaml: (name) => `name: ${name}
version: "1"
description: Waits for a human to approve before publishing.

state:
  decision: { type: any }

nodes:
  - name: draft
    node_type: function
    config: { op: template, template: "Request: {{input}}" }

  - name: approve
    node_type: human_input
    config: { prompt: "Approve this request? Answer yes or no." }

  - name: record
    node_type: function
    config: { op: set_state, field: decision }

  - name: decide
    node_type: function
    config: { op: route_if, compare: in, value: [yes, y], then: publish, else: reject }

  - name: publish
    node_type: function
    config: { op: template, template: "published" }

  - name: reject
    node_type: function
    config: { op: template, template: "rejected" }

edges:
  - { from: __start__, to: draft }
  - { from: draft, to: approve }
  - { from: approve, to: record }
  - { from: record, to: decide }
  - { from: decide, to: publish }
  - { from: decide, to: reject }
  - { from: publish, to: __end__ }
  - { from: reject, to: __end__ }
`,
  },
  {
    id: "map-reduce",
    title: "Fan out and join",
    description: "Splits a list across parallel branches and joins the results.",
    yaml: (name) => `name: ${name}
version: "1"
description: Word lengths in parallel, summed at a join.
scheduler: parallel

nodes:
  - name: split
    node_type: fan_out
    config: { targets: [left, right], default_items: [graph, engine, modex, spec] }

  - name: left
    node_type: function
    config: { op: map, fn: length }

  - name: right
    node_type: function
    config: { op: map, fn: length }

  - name: total
    node_type: join
    config: { reduce: sum }

edges:
  - { from: __start__, to: split }
  - { from: split, to: left }
  - { from: split, to: right }
  - { from: left, to: total }
  - { from: right, to: total }
  - { from: total, to: __end__ }
`,
  },
];

export function templateById(id: string | null | undefined): SpecTemplate {
  return SPEC_TEMPLATES.find((t) => t.id === id) ?? SPEC_TEMPLATES[0];
}
