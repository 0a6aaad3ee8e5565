import type { HookContext } from "../hook/hook-context";
import { Hook } from "../hook/hook-contracts";
import { ALL_HOOK_POINTS, HOOK_METHOD, type HookPoint } from "../hook/hook-point";

export interface RecordedDispatch {
  point: HookPoint;
  ctx: HookContext<HookPoint>;
}

/** Implements all fifteen points and records every dispatch it receives, in order. */
export class RecordingHook extends Hook {
  readonly calls: RecordedDispatch[] = [];

  constructor() {
    super();
    for (const point of ALL_HOOK_POINTS) {
      const method = HOOK_METHOD[point];
      (this as unknown as Record<string, unknown>)[method] = (ctx: HookContext<HookPoint>) => {
        this.calls.push({ point, ctx });
        return point === "FINALIZE_CONTENT" ? (ctx as HookContext<"FINALIZE_CONTENT">).content : undefined;
      };
    }
  }

  points(): HookPoint[] {
    return this.calls.map((c) => c.point);
  }

  count(point: HookPoint): number {
    return this.calls.filter((c) => c.point === point).length;
  }
}
