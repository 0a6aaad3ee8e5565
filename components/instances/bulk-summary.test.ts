import { expect, it } from "vitest";
import { bulkSummary } from "./bulk-summary";

it("says what was done and what was left, and why", () => {
  expect(bulkSummary({ action: "archive", matched: 3, done: 3, skipped: [] })).toEqual({ text: "3 runs archived.", tone: "ok" });
  const running = (id: string) => ({ instanceId: id, reason: "running" as const, message: `instance ${id} is running` });
  expect(bulkSummary({ action: "delete", matched: 4, done: 2, skipped: [running("a"), running("b")] })).toEqual({
    text: "2 runs deleted. 2 running runs were left (stop a run to delete it).",
    tone: "partly",
  });
  expect(bulkSummary({ action: "delete", matched: 2, done: 1, skipped: [running("a")] }).text).toBe("1 run deleted. 1 running run was left (stop a run to delete it).");
  expect(bulkSummary({ action: "unarchive", matched: 1, done: 0, skipped: [{ instanceId: "x", reason: "not_found", message: "gone" }] })).toEqual({
    text: "0 runs unarchived. 1 run was already gone.",
    tone: "partly",
  });
  expect(bulkSummary({ action: "delete", matched: 1, done: 0, skipped: [{ instanceId: "x", reason: "failed", message: "disk full" }] })).toEqual({
    text: "0 runs deleted. 1 run failed: disk full",
    tone: "failed",
  });
  expect(bulkSummary({ action: "delete", matched: 0, done: 0, skipped: [] }).text).toBe("No runs matched: nothing was done.");
});
