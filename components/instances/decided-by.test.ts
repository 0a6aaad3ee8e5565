import { describe, expect, it } from "vitest";
import { decidedBy } from "./decided-by";

describe("decidedBy", () => {
  it("says You for the reader's own sign-in session, in any tab; another session, the API, or an older record in the third person", () => {
    expect(decidedBy({ by: "session", session: "aaaa" }, "aaaa")).toBe("You");
    expect(decidedBy({ by: "session", session: "aaaa" }, "bbbb")).toBe("Another browser session");
    expect(decidedBy({ by: "session", session: "aaaa" }, null)).toBe("Another browser session"); // a reader signed in by token
    expect(decidedBy({ by: "session" }, "aaaa")).toBe("A browser session"); // recorded before sessions were told apart
    expect(decidedBy({ by: "token" }, "aaaa")).toBe("The API (access token)");
    expect(decidedBy({ by: "unknown" }, "aaaa")).toBe("Someone");
  });
});
