import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from "yaml";
import { placeSyntaxIssue } from "@/components/graphs/editor-issues";
import { edgeId, END, START, type TopoEdge, type TopoNode, type Topology, withJoins } from "@/shared/canvas/topology";

/**
 * Reads the graph's topology straight from the YAML text, in the browser, on every keystroke: the
 * preview follows the editor without a server round trip. It checks only what it needs to draw;
 * the server's `specs.validate` is the authority and adds its own markers.
 */

export interface YamlProblem {
  readonly message: string;
  /** 1-based. */
  readonly line: number;
  readonly column: number;
}

export type YamlTopologyResult =
  | { readonly ok: true; readonly topology: Topology; readonly name?: string }
  | { readonly ok: false; readonly problem: YamlProblem };

function placeOf(node: YamlNode | null | undefined, lines: LineCounter): { line: number; column: number } {
  const offset = node?.range?.[0] ?? 0;
  const pos = lines.linePos(offset);
  return { line: pos.line, column: pos.col };
}

function str(node: unknown): string | undefined {
  if (isScalar(node) && (typeof node.value === "string" || typeof node.value === "number")) return String(node.value);
  return undefined;
}

function fail(message: string, at: YamlNode | null | undefined, lines: LineCounter): YamlTopologyResult {
  return { ok: false, problem: { message, ...placeOf(at, lines) } };
}

export function yamlToTopology(text: string): YamlTopologyResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = lines.linePos(e.pos[0]);
    return { ok: false, problem: placeSyntaxIssue({ message: e.message.split("\n")[0], line: pos.line, column: pos.col }, text) };
  }
  const root = doc.contents;
  if (!isMap(root)) return fail("a spec is a mapping with name, nodes and edges", root, lines);

  const nodesNode = root.get("nodes", true) as YamlNode | undefined;
  const nodes: TopoNode[] = [{ id: START, kind: "start", nodeType: "", isJoin: false }];
  const seen = new Set<string>([START, END]);

  const addNode = (name: string | undefined, body: unknown, keyNode: YamlNode | null | undefined) => {
    if (!name) return "a node needs a name";
    if (seen.has(name)) return name === START || name === END ? `${name} is implicit; do not declare it` : `node "${name}" is declared twice`;
    seen.add(name);
    const nodeType = isMap(body) ? (str(body.get("node_type", true)) ?? "") : "";
    const description = isMap(body) ? str(body.get("description", true)) : undefined;
    nodes.push({ id: name, kind: "node", nodeType, isJoin: nodeType === "join", description, ...placeOf(keyNode, lines) });
    return undefined;
  };

  if (isSeq(nodesNode)) {
    for (const item of nodesNode.items) {
      const entry = item as YamlNode;
      const problem = addNode(isMap(entry) ? str(entry.get("name", true)) : undefined, entry, entry);
      if (problem) return fail(problem, entry, lines);
    }
  } else if (isMap(nodesNode)) {
    for (const pair of nodesNode.items) {
      const key = pair.key as YamlNode;
      const problem = addNode(str(key), pair.value, key);
      if (problem) return fail(problem, key, lines);
    }
  } else if (nodesNode !== undefined && !(isScalar(nodesNode) && nodesNode.value === null)) {
    return fail("nodes is a list of { name, node_type, config } or a map name → node", nodesNode, lines);
  }
  nodes.push({ id: END, kind: "end", nodeType: "", isJoin: false });

  const edges: TopoEdge[] = [];
  const edgesNode = root.get("edges", true) as YamlNode | undefined;
  if (isSeq(edgesNode)) {
    const ids = new Set<string>();
    for (const item of edgesNode.items) {
      const entry = item as YamlNode;
      if (!isMap(entry)) return fail("an edge is { from, to }", entry, lines);
      const from = str(entry.get("from", true));
      const to = str(entry.get("to", true));
      if (!from || !to) return fail("an edge needs both from and to", entry, lines);
      for (const [end, value] of [["from", from], ["to", to]] as const) {
        if (!seen.has(value)) return fail(`edge ${end}: unknown node "${value}"`, entry.get(end, true) as YamlNode, lines);
      }
      const id = edgeId(from, to);
      if (ids.has(id)) continue;
      ids.add(id);
      edges.push({ id, source: from, target: to });
    }
  } else if (edgesNode !== undefined && !(isScalar(edgesNode) && edgesNode.value === null)) {
    return fail("edges is a list of { from, to }", edgesNode, lines);
  }

  return { ok: true, topology: { nodes: withJoins(nodes, edges), edges }, name: str(root.get("name", true)) };
}
