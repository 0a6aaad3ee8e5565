import { describe, expect, it } from "vitest";
import { DeliveredRow } from "./delivered-row";
import { deliverRow, readsAs } from "./persistence/records";

const make = (createdAt: number, content: unknown = "x") =>
  new DeliveredRow("1", "gi_1", "a", "node_a", "inv_1", "b", "node_b", content, createdAt);

describe("DeliveredRow", () => {
  it("reads as its PENDING snapshot, with the time it was delivered", () => {
    const row = make(1_764_547_200_123);
    expect(readsAs(row, "PENDING", null)).toBe(true);
    expect(row.createdAt).toBe(1_764_547_200_123);
    expect(deliverRow(row, "CONSUMED_PENDING", "inv_2")).toEqual({
      deliverId: "1", instanceId: "gi_1", sourceNode: "a", sourceNodeId: "node_a", sourceInvocationId: "inv_1",
      targetNode: "b", targetNodeId: "node_b", content: "x", status: "CONSUMED_PENDING", consumedByInvocationId: "inv_2",
      createdAt: 1_764_547_200_123,
    });
  });

  it("keeps each row's own time when rows of different milliseconds interleave", () => {
    const rows = [make(10), make(10), make(11), make(10)];
    expect(rows.map((r) => r.createdAt)).toEqual([10, 10, 11, 10]);
  });

  it("serialises as the plain record", () => {
    const row = make(42, { n: 1 });
    expect(JSON.parse(JSON.stringify(row))).toEqual({ ...deliverRow(row, "PENDING", null), content: { n: 1 } });
  });
});
