import { DEFAULT_INVOCATION_CONFIGS } from "./default-invocation-configs";
import { ALL_EXTENSION_POINTS, EXTENSION_POINT_GROUP, ExtensionGroup, type ExtensionPoint } from "./extension-point";
import type { InvocationMode } from "./invocation-config";

/**
 * The points as a person reads them: under the spec's group names, each with its invocation mode. The one
 * source of the catalogue the Extensions page, `GET /api/extensions` and `modexctl extensions --points`
 * show (they receive it in the report; none of them keeps a copy).
 */

/** The spec's table headings, in its order. */
export const EXTENSION_GROUP_LABEL: { readonly [G in ExtensionGroup]: string } = {
  message_preparation: "Message Preparation",
  llm_interaction: "LLM Interaction",
  prompt_pipeline: "Prompt Pipeline",
  tool_execution: "Tool Execution",
  continuation_loop: "Continuation Loop",
  error_handling: "Error Handling",
  response: "Response",
  session_lifecycle: "Session Lifecycle",
  knowledge: "Knowledge Integration",
  approval: "Approval Flow",
};

export interface CataloguePoint {
  point: ExtensionPoint;
  mode: InvocationMode;
  /** The data key a TRANSFORM chains through (absent for the other modes). */
  transformKey?: string;
}

export interface PointGroup<P extends CataloguePoint = CataloguePoint> {
  group: ExtensionGroup;
  label: string;
  points: P[];
}

/** One point with its default mode (the one every invocation in Modex uses). */
export function cataloguePoint(point: ExtensionPoint): CataloguePoint {
  const config = DEFAULT_INVOCATION_CONFIGS[point];
  return config.mode === "TRANSFORM" ? { point, mode: config.mode, transformKey: config.transformKey } : { point, mode: config.mode };
}

/**
 * `points` under their groups, groups in the spec's order and points in the spec's order within each;
 * a group none of them is in is left out. Without `points`: all 25, in every group.
 */
export function groupPoints(points: readonly ExtensionPoint[] = ALL_EXTENSION_POINTS): PointGroup[] {
  const wanted = new Set(points);
  return Object.values(ExtensionGroup).flatMap((group) => {
    const inGroup = ALL_EXTENSION_POINTS.filter((p) => wanted.has(p) && EXTENSION_POINT_GROUP[p] === group);
    return inGroup.length === 0 ? [] : [{ group, label: EXTENSION_GROUP_LABEL[group], points: inGroup.map(cataloguePoint) }];
  });
}

export interface ListenedPoint extends CataloguePoint {
  /** The enabled extensions that implement it, in the order they run (lower priority first). */
  listeners: string[];
}

/** All 25 points by group, each with the enabled extensions that listen there (`extensions` in run order). */
export function pointsWithListeners(extensions: readonly { name: string; enabled: boolean; points: readonly ExtensionPoint[] }[]): PointGroup<ListenedPoint>[] {
  return groupPoints().map((g) => ({
    ...g,
    points: g.points.map((p) => ({ ...p, listeners: extensions.filter((e) => e.enabled && e.points.includes(p.point)).map((e) => e.name) })),
  }));
}
