/**
 * A wide spec's YAML: `chains` chains of `depth` function nodes between a fan_out and a join
 * (chains × depth + 2 nodes; 198 × 101 is the 20,000-node, 2.1 MB spec of bench:load and bench:save).
 * Plain JavaScript, so that bench/load-bench.mjs runs it without a build.
 * @param {{ name: string; chains: number; depth: number; version?: string; description?: string }} options
 * @returns {string}
 */
export function wideSpec({ name, chains, depth, version = "1", description = `${chains * depth + 2} nodes` }) {
  const lines = [`name: ${name}`, `version: "${version}"`, `description: ${description}`, "scheduler: parallel", "nodes:"];
  const heads = Array.from({ length: chains }, (_, k) => `c${k}_0`);
  lines.push("  - name: split", "    node_type: fan_out", `    config: { targets: [${heads.join(", ")}] }`);
  for (let k = 0; k < chains; k++) {
    for (let j = 0; j < depth; j++) lines.push(`  - name: c${k}_${j}`, "    node_type: function", "    config: { op: identity }");
  }
  lines.push("  - name: merge", "    node_type: join", "    config: { reduce: list }", "edges:", "  - { from: __start__, to: split }");
  for (const h of heads) lines.push(`  - { from: split, to: ${h} }`);
  for (let k = 0; k < chains; k++) {
    for (let j = 0; j + 1 < depth; j++) lines.push(`  - { from: c${k}_${j}, to: c${k}_${j + 1} }`);
    lines.push(`  - { from: c${k}_${depth - 1}, to: merge }`);
  }
  lines.push("  - { from: merge, to: __end__ }");
  return lines.join("\n") + "\n";
}
