import { describe, expect, it } from "vitest";
import { actionItems, ACTIONS, agentItems, chatItems, graphItems, graphRunListItems, GRAPH_RUN_LISTS, matchScore, pageItems, PAGES, PER_GROUP, runItems } from "./palette-items";

describe("matchScore", () => {
  it("ranks the whole text over its start over a word's start over anywhere, and nothing at 0", () => {
    expect(matchScore("review", "review")).toBe(4);
    expect(matchScore("review-cycle", "review")).toBe(3);
    expect(matchScore("code-review", "review")).toBe(2);
    expect(matchScore("prereview", "review")).toBe(1);
    expect(matchScore("summarize", "review")).toBe(0);
    expect(matchScore(null, "review")).toBe(0);
  });

  it("is case-insensitive on the text (the query comes lower-cased)", () => {
    expect(matchScore("Release Notes", "notes")).toBe(2);
  });
});

describe("pageItems", () => {
  it("offers every page without a query, in the navigation's order", () => {
    expect(pageItems("").map((p) => p.href)).toEqual(PAGES.map((p) => p.href));
  });

  it("finds a page by its name before one found by its words", () => {
    const items = pageItems("run");
    expect(items.length).toBeGreaterThan(0);
    // "runs" is a word of Instances and of Waiting for you; no page is named "run…".
    expect(items.map((i) => i.label)).toContain("Instances");
    expect(pageItems("trac")[0]).toMatchObject({ label: "Traces", href: "/traces", group: "Pages" });
    expect(pageItems("cron")[0].label).toBe("Triggers");
  });

  it("offers nothing for a query no page matches", () => {
    expect(pageItems("zzzz")).toEqual([]);
  });
});

describe("graphItems and agentItems", () => {
  const specs = [
    { name: "counter-loop", description: "Counts up to a limit" },
    { name: "review-cycle", description: "An agent reviews a draft" },
    { name: "code-review", description: null },
  ];

  it("puts a name match before a description match, and links to the editor", () => {
    const items = graphItems(specs, "review");
    expect(items.map((i) => i.label)).toEqual(["review-cycle", "code-review"]);
    expect(items[0].href).toBe("/graphs/review-cycle");
    expect(graphItems(specs, "counts").map((i) => i.label)).toEqual(["counter-loop"]);
  });

  it("shows at most PER_GROUP", () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ name: `graph-${i}`, description: null }));
    expect(graphItems(many, "graph")).toHaveLength(PER_GROUP);
  });

  it("links an agent to its page on the Agents view, its name encoded", () => {
    expect(agentItems([{ name: "writer & co", description: "Writes" }], "writer")[0].href).toBe("/agents?agent=writer%20%26%20co");
  });
});

describe("graphRunListItems", () => {
  const specs = [
    { name: "counter-loop" },
    { name: "review-cycle" },
    { name: "code-review" },
    { name: "reviewer & co" },
  ];

  it("lists the runs of the graphs whose name matches (not their description), best first, at most GRAPH_RUN_LISTS", () => {
    const items = graphRunListItems(specs, "review");
    expect(items).toHaveLength(GRAPH_RUN_LISTS);
    expect(items.map((i) => i.label)).toEqual(["Runs of review-cycle", "Runs of reviewer & co"]);
    expect(items[0]).toMatchObject({ group: "Runs", href: "/instances?graph=review-cycle" });
    expect(items[1].href).toBe("/instances?graph=reviewer%20%26%20co");
    expect(graphRunListItems(specs, "counts")).toEqual([]);
  });
});

describe("runItems and chatItems", () => {
  it("says what a run waits for, else its status", () => {
    const items = runItems([
      { instanceId: "i-1", graphName: "g", status: "paused", waitKind: "approval" },
      { instanceId: "i-2", graphName: "g", status: "completed", waitKind: null },
    ]);
    expect(items.map((i) => i.detail)).toEqual(["g · waiting for approval", "g · completed"]);
    expect(items[0].href).toBe("/instances/i-1");
  });

  it("names a chat's agent (the assistant when none) and a waiting approval", () => {
    const items = chatItems([
      { sessionId: "s1", title: "Plan", agent: null, awaitingApproval: true },
      { sessionId: "s2", title: "Notes", agent: "writer", awaitingApproval: false },
    ]);
    expect(items.map((i) => i.detail)).toEqual(["assistant · waiting for approval", "writer"]);
    expect(items[1].href).toBe("/chat?session=s2");
  });
});

describe("actionItems", () => {
  it("offers every action without a query, and finds the theme and the shortcuts by name or by a word", () => {
    expect(actionItems("").map((a) => a.action)).toEqual(ACTIONS.map((a) => a.action));
    expect(actionItems("dark")[0]).toMatchObject({ label: "Theme: Dark", action: "theme:dark", group: "Actions" });
    expect(actionItems("night").map((a) => a.label)).toEqual(["Theme: Dark"]);
    expect(actionItems("theme").map((a) => a.action)).toEqual(["theme:system", "theme:light", "theme:dark"]);
    expect(actionItems("hotkeys")[0]).toMatchObject({ label: "Keyboard shortcuts", action: "shortcuts" });
    expect(actionItems("hotkeys")[0].href).toBeUndefined();
  });
});
