import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isKnowledgeBaseError } from "../errors";
import { GraphKnowledgeBase } from "./knowledge-base";

const dirs: string[] = [];
function kb(): GraphKnowledgeBase {
  const workspace = mkdtempSync(path.join(tmpdir(), "modex-kb-"));
  dirs.push(workspace);
  let t = Date.UTC(2026, 10, 30, 12, 0, 0);
  return GraphKnowledgeBase.forInstance(workspace, "inst-1", () => (t += 1000));
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const rejects = (fn: () => unknown, message: RegExp) => expect(fn).toThrow(expect.objectContaining({ message: expect.stringMatching(message) }));

describe("GraphKnowledgeBase", () => {
  it("lives under <workspace>/.modex/graphs/instances/<id>/ and starts empty", () => {
    const k = kb();
    expect(k.dir).toMatch(/\.modex\/graphs\/instances\/inst-1$/);
    expect(k.ls()).toEqual(["findings", "decisions", "open_questions", "context", "changelog"].map((pattern) => ({ pattern, lines: 0, bytes: 0 })));
    expect(k.read("findings")).toEqual({ text: "", offset: 1, totalLines: 0, nextOffset: null });
    expect(() => GraphKnowledgeBase.forInstance("/tmp", "../escape")).toThrow(/safe directory name/);
  });

  it("writes by mode: create only when empty, append adds lines, overwrite replaces", () => {
    const k = kb();
    k.write("findings", "- the API is paginated", "create", "researcher");
    rejects(() => k.write("findings", "again", "create", "researcher"), /already has content/);
    k.write("findings", "- rate limit: 10 rps", "append", "researcher");
    expect(k.read("findings").text).toBe("- the API is paginated\n- rate limit: 10 rps");
    k.write("open_questions", "Which region?", "overwrite", "planner");
    k.write("open_questions", "None left.", "overwrite", "planner");
    expect(k.read("open_questions").text).toBe("None left.");
  });

  it("pages reads by line, with the next offset", () => {
    const k = kb();
    k.write("context", Array.from({ length: 5 }, (_, i) => `line ${i + 1}`).join("\n"), "overwrite", "n");
    expect(k.read("context", 2, 2)).toEqual({ text: "line 2\nline 3", offset: 2, totalLines: 5, nextOffset: 4 });
    expect(k.read("context", 4, 10)).toMatchObject({ text: "line 4\nline 5", nextOffset: null });
    expect(k.tail("context", 2)).toBe("line 4\nline 5");
  });

  it("edits one exact occurrence, or all with replaceAll; refuses ambiguous and absent text", () => {
    const k = kb();
    k.write("decisions", "use REST\nuse REST for admin", "overwrite", "architect");
    rejects(() => k.edit("decisions", "use REST", "use gRPC", "architect"), /occurs 2 times/);
    rejects(() => k.edit("decisions", "use SOAP", "x", "architect"), /does not occur/);
    expect(k.edit("decisions", "for admin", "for the admin UI", "architect")).toBe(1);
    expect(k.edit("decisions", "use REST", "use gRPC", "architect", true)).toBe(2);
    expect(k.read("decisions").text).toBe("use gRPC\nuse gRPC for the admin UI");
  });

  it("a regex that backtracks for ever is stopped after a second with a typed error, and the next grep works", () => {
    const k = kb();
    k.write("findings", `${"a".repeat(40)}b\nok`, "overwrite", "a");
    expect(() => k.grep("(a+)+$")).toThrow(/ran over 1000 ms/);
    expect(k.grep("^ok$").map((h) => h.line)).toEqual([2]);
  });

  it("greps every pattern (or one), per line, optionally ignoring case; a bad regex is a typed error", () => {
    const k = kb();
    k.write("findings", "Latency is 40 ms\nthroughput fine", "overwrite", "a");
    k.write("decisions", "cache latency-critical calls", "overwrite", "b");
    expect(k.grep("latency", undefined, true).map((h) => `${h.pattern}:${h.line}`)).toEqual(["findings:1", "decisions:1"]);
    expect(k.grep("latency", "findings")).toEqual([]);
    try {
      k.grep("(");
      expect.unreachable();
    } catch (e) {
      expect(isKnowledgeBaseError(e)).toBe(true);
    }
  });

  it("appends a changelog entry per change: time, node, action and a unified diff; no entry for a no-op", () => {
    const k = kb();
    k.write("findings", "- one", "append", "researcher");
    k.edit("findings", "one", "two", "reviewer");
    k.write("context", "", "overwrite", "x"); // empty to empty: nothing changed
    const log = readFileSync(path.join(k.dir, "changelog.md"), "utf8");
    expect(log).toContain("## 2026-11-30T12:00:01.000Z · researcher · append findings");
    expect(log).toContain("## 2026-11-30T12:00:02.000Z · reviewer · edit findings");
    expect(log).toContain("-- one");
    expect(log).toContain("+- two");
    expect(log.match(/^## /gm)).toHaveLength(2);
  });
});
