/** Spec YAML for the specs-as-code tests, over REST and through modexctl: one that compiles, one that does not. */

/** START → greet → END, greet answering `template`: the same name and template are the same content. */
export function greetSpec(name: string, template = "hello"): string {
  return `name: ${name}
version: "1"
nodes:
  - name: greet
    node_type: function
    config: { op: template, template: "${template}" }
edges:
  - { from: __start__, to: greet }
  - { from: greet, to: __end__ }
`;
}

/** Two problems, located as the editor shows them: an unknown node type at 8:16, a config value of the wrong type at 11:19. */
export function brokenSpec(name: string): string {
  return `name: ${name}
version: "1"
nodes:
  - name: greet
    node_type: function
    config: { op: template, template: "hi" }
  - name: other
    node_type: no_such_type
  - name: third
    node_type: delay
    config: { ms: "soon" }
edges:
  - { from: __start__, to: greet }
  - { from: greet, to: __end__ }
`;
}
