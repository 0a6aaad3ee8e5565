import { describe, expect, it } from "vitest";
import { formatDuration, formatTimeIn, renderTable } from "./table.mjs";

describe("modexctl tables", () => {
  it("aligns columns under a header and a rule, and cuts long cells", () => {
    const text = renderTable(
      [
        { id: "1", status: "completed", note: null },
        { id: "1234567", status: "paused", note: "x".repeat(100) },
      ],
      [
        { title: "ID", key: "id" },
        { title: "STATUS", key: "status" },
        { title: "NOTE", key: "note" },
      ],
    );
    const lines = text.split("\n");
    expect(lines[0]).toBe("ID       STATUS     NOTE");
    expect(lines[1]).toBe("-------  ---------  ------------------------------------------------------------");
    expect(lines[2]).toBe("1        completed  -");
    expect(lines[3]).toMatch(/^1234567  paused     x+…$/);
    expect(lines[3].length).toBe(7 + 2 + 9 + 2 + 60);
    expect(renderTable([], [{ title: "X", key: "x" }])).toBe("(none)");
    expect(formatDuration(0, 250)).toBe("250 ms");
    expect(formatDuration(0, 2500)).toBe("2.50 s");
  });

  it("formats a time in a named zone, saying which (UTC when the zone is unknown)", () => {
    const at = Date.UTC(2026, 6, 1, 22, 30, 5);
    expect(formatTimeIn(at, "Europe/Paris")).toBe("2026-07-02 00:30:05 Europe/Paris");
    expect(formatTimeIn(at, "UTC")).toBe("2026-07-01 22:30:05 UTC");
    expect(formatTimeIn(at, "Mars/Olympus")).toBe("2026-07-01 22:30:05 UTC");
    expect(formatTimeIn(null, "UTC")).toBe("-");
  });
});
