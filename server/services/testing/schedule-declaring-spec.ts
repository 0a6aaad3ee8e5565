/**
 * A counter spec `name` (one node adding 1 to `count`) whose `schedules:` block declares `schedules`,
 * each one schedule in YAML flow form (`{ name: nightly, cron: "0 2 * * *" }`). With none the spec has
 * no `schedules:` block: saving it drops what an earlier revision declared.
 */
export function scheduleDeclaringSpec(name: string, schedules: string[]): string {
  const block = schedules.length > 0 ? `schedules:\n${schedules.map((s) => `  - ${s}\n`).join("")}` : "";
  return `name: ${name}
nodes:
  - { name: tick, node_type: function, config: { op: increment, field: count, by: 1 } }
edges:
  - { from: __start__, to: tick }
  - { from: tick, to: __end__ }
state:
  count: { type: number, default: 0 }
${block}`;
}
