import { describe, expect, it } from "vitest";
import { adaptInput } from "./input-adapter";
import { helpText, sessionControl } from "./session-control";

const decide = (raw: string) => sessionControl(adaptInput(raw));

describe("input pipeline", () => {
  it("passes text to the agent, paths and a lone slash included", () => {
    expect(decide("  hello  ")).toEqual({ kind: "agent", text: "hello" });
    expect(decide("/usr/bin is a folder")).toEqual({ kind: "agent", text: "/usr/bin is a folder" });
    expect(decide("/ spaced")).toEqual({ kind: "agent", text: "/ spaced" });
  });

  it("intercepts the session commands, with reasons for approve and deny", () => {
    expect(decide("/stop")).toEqual({ kind: "control", command: "stop", reason: null });
    expect(decide("/APPROVE looks fine")).toEqual({ kind: "control", command: "approve", reason: "looks fine" });
    expect(decide("/deny")).toEqual({ kind: "control", command: "deny", reason: null });
    expect(decide("/new")).toEqual({ kind: "control", command: "new", reason: null });
    expect(decide("/help")).toEqual({ kind: "control", command: "help", reason: null });
  });

  it("answers unknown commands and stray arguments clearly", () => {
    expect(decide("/frobnicate now")).toEqual({ kind: "unknown", command: "/frobnicate", message: `unknown command /frobnicate. ${helpText()}` });
    expect(decide("/stop it please")).toMatchObject({ kind: "unknown", message: "/stop takes no arguments (usage: /stop)" });
    expect(helpText()).toContain("/approve [reason]");
  });
});
