import { describe, expect, it } from "vitest";
import { copyName, renameSpecYaml } from "./spec-copy";

describe("renameSpecYaml", () => {
  it("replaces the top-level name only, keeping comments, quoting elsewhere and the nodes' names", () => {
    const yaml = `# Approval gate: a comment stays\nname: approval-gate\nversion: "1"\nnodes:\n  - name: draft\n    node_type: function\n`;
    expect(renameSpecYaml(yaml, "approval-gate-copy")).toBe(`# Approval gate: a comment stays\nname: approval-gate-copy\nversion: "1"\nnodes:\n  - name: draft\n    node_type: function\n`);
  });

  it("replaces a quoted name or one with a trailing comment", () => {
    expect(renameSpecYaml(`name: "old" # the graph\nversion: "1"\n`, "new")).toBe(`name: new\nversion: "1"\n`);
  });

  it("adds a name to a spec that has none at the top level", () => {
    expect(renameSpecYaml(`version: "1"\nnodes:\n  - name: a\n`, "fresh")).toBe(`name: fresh\nversion: "1"\nnodes:\n  - name: a\n`);
  });
});

describe("copyName", () => {
  it("is <name>-copy, or the first -copy-N no graph has", () => {
    expect(copyName("g", new Set(["g"]))).toBe("g-copy");
    expect(copyName("g", new Set(["g", "g-copy", "g-copy-2"]))).toBe("g-copy-3");
  });
});
