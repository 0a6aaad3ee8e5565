import { describe, expect, it } from "vitest";
import { TrainingExportQuery, TurnPageInput, TurnPageQuery } from "@/server/api/turn-page-args";

const CURSOR = "1733212800000.0123456789abcdef";

describe("a page of agent turns, asked over tRPC and over REST", () => {
  it("defaults to 50 of every source, failed or not", () => {
    const page = { cursor: undefined, limit: 50, filter: { source: "all", errorsOnly: false, trainingOnly: false } };
    expect(TurnPageInput.parse({})).toEqual(page);
    expect(TurnPageQuery.parse({})).toEqual(page);
  });

  it("reads the query string's text as the tRPC input's values", () => {
    expect(TurnPageQuery.parse({ cursor: CURSOR, limit: "10", source: "chat", errors: "1", training: "1" })).toEqual(
      TurnPageInput.parse({ cursor: CURSOR, limit: 10, source: "chat", errorsOnly: true, trainingOnly: true }),
    );
  });

  it("refuses the same limits and cursors on both sides", () => {
    for (const limit of [0, 201, 2.5]) {
      expect(TurnPageInput.safeParse({ limit }).error?.issues[0].path).toEqual(["limit"]);
      expect(TurnPageQuery.safeParse({ limit: String(limit) }).error?.issues[0].path).toEqual(["limit"]);
    }
    expect(TurnPageQuery.safeParse({ limit: "ten" }).error?.issues[0].path).toEqual(["limit"]);
    for (const cursor of ["yesterday", "1.abc", `${CURSOR}0`]) {
      expect(TurnPageInput.safeParse({ cursor }).error?.issues[0].message).toBe("a cursor from the previous page's nextCursor");
      expect(TurnPageQuery.safeParse({ cursor }).error?.issues[0].message).toBe("a cursor from the previous page's nextCursor");
    }
  });

  it("takes a flag only as 0 or 1 in the query string", () => {
    expect(TurnPageQuery.safeParse({ errors: "true" }).error?.issues[0].path).toEqual(["errors"]);
  });

  it("reads the export's since= as a date, a date-time or epoch milliseconds", () => {
    expect(TrainingExportQuery.parse({ since: "2026-12-01" })).toEqual({ source: "all", since: Date.UTC(2026, 11, 1) });
    expect(TrainingExportQuery.parse({ source: "node", since: "2026-12-01T08:00:00Z" })).toEqual({ source: "node", since: Date.UTC(2026, 11, 1, 8) });
    expect(TrainingExportQuery.parse({ since: "1733212800000" }).since).toBe(1733212800000);
    expect(TrainingExportQuery.safeParse({ since: "last week" }).error?.issues[0].path).toEqual(["since"]);
  });
});
