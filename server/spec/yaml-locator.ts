import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node as YamlNode } from "yaml";
import type { SpecPath } from "@/server/graph/spec/spec-errors";

export interface SourcePosition {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
}

/**
 * The position of the YAML node a spec path points at. Map entries point at their value, or at the
 * key when the value is empty or a collection (so `nodes[2].config` names the line of `config:`).
 * `target: "key"` points at the last key even when its value is a scalar (unknown keys).
 * A path that leaves the document (a missing key) stops at the deepest node that exists.
 */
export function locateSpecPath(doc: Document, lines: LineCounter, path: SpecPath, target?: "key"): SourcePosition {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (const [depth, seg] of path.entries()) {
    node = resolveAlias(doc, node);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      const value = resolveAlias(doc, pair.value);
      const valueStart = rangeStart(pair.value);
      const pointAtKey = valueStart === undefined || isMap(value) || isSeq(value) || (target === "key" && depth === path.length - 1);
      offset = (pointAtKey ? rangeStart(pair.key) : valueStart) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === "number" && node.items[seg] !== undefined) {
      node = node.items[seg];
      offset = rangeStart(node) ?? offset;
    } else {
      break;
    }
  }
  return positionOf(lines, offset);
}

export function positionOf(lines: LineCounter, offset: number): SourcePosition {
  const { line, col } = lines.linePos(Math.max(0, offset));
  return { line, column: col };
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as YamlNode | null | undefined)?.range;
  return range ? range[0] : undefined;
}

function resolveAlias(doc: Document, node: unknown): unknown {
  // One step is enough: an alias resolves to an anchored node, never to another alias.
  return isAlias(node) ? node.resolve(doc) : node;
}
