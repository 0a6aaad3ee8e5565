import type { InstanceBulkResult } from "@/components/api/contract";

export type BulkTone = "ok" | "partly" | "failed";

const DONE: Record<InstanceBulkResult["action"], string> = { archive: "archived", unarchive: "unarchived", delete: "deleted" };

const runs = (n: number) => `${n.toLocaleString()} ${n === 1 ? "run" : "runs"}`;
const were = (n: number) => (n === 1 ? "was" : "were");

/**
 * What a bulk action did, in one sentence a person reads after the selection is gone: how many runs it
 * acted on, and each kind of run it left, with why (a running run is never deleted).
 */
export function bulkSummary(result: InstanceBulkResult): { text: string; tone: BulkTone } {
  if (result.matched === 0) return { text: "No runs matched: nothing was done.", tone: "ok" };
  const count = (reason: string) => result.skipped.filter((s) => s.reason === reason).length;
  const [running, gone] = [count("running"), count("not_found")];
  const failed = result.skipped.filter((s) => s.reason === "failed");
  const parts = [`${runs(result.done)} ${DONE[result.action]}.`];
  if (running) parts.push(`${running.toLocaleString()} running ${running === 1 ? "run was" : "runs were"} left (stop a run to delete it).`);
  if (gone) parts.push(`${runs(gone)} ${were(gone)} already gone.`);
  if (failed.length) parts.push(`${runs(failed.length)} failed: ${failed[0]!.message}`);
  return { text: parts.join(" "), tone: failed.length ? "failed" : running || gone ? "partly" : "ok" };
}
