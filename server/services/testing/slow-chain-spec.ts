/** fetch → d1 → d2 → d3 → publish: a linear spec slow enough (three delays of `ms`) to act on mid-run. */
export function slowChainSpec(name: string, ms: number): string {
  return `
name: ${name}
nodes:
  - { name: fetch, node_type: function, config: { op: template, template: "item {{input}}" } }
  - { name: d1, node_type: delay, config: { ms: ${ms} } }
  - { name: d2, node_type: delay, config: { ms: ${ms} } }
  - { name: d3, node_type: delay, config: { ms: ${ms} } }
  - { name: publish, node_type: function, config: { op: template, template: "published {{input}}" } }
edges:
  - { from: __start__, to: fetch }
  - { from: fetch, to: d1 }
  - { from: d1, to: d2 }
  - { from: d2, to: d3 }
  - { from: d3, to: publish }
  - { from: publish, to: __end__ }
`;
}
