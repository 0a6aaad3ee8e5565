import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateSpecYaml } from "@/server/spec/parse-spec-yaml";
import { editorIssues } from "./editor-issues";

const mapReduce = readFileSync("config/graphs/map-reduce.yml", "utf8");
const lineOf = (text: string, part: string) => text.split("\n").findIndex((l) => l.includes(part)) + 1;

describe("editorIssues", () => {
  it("a deleted } is one issue, on the line of the { it leaves open (the compiler reports a cascade below it)", () => {
    const text = mapReduce.replace("config: { op: map, fn: length }", "config: { op: map, fn: length ");
    const raw = validateSpecYaml(text);
    expect(raw.length).toBeGreaterThan(1);
    const shown = editorIssues(raw, text);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ kind: "syntax", line: lineOf(text, "fn: length "), column: text.split("\n")[lineOf(text, "fn: length ") - 1].indexOf("{") + 1 });
    expect(shown[0].message).toContain('"{" is never closed');
  });

  it("an unclosed [ is placed where it opens", () => {
    const text = mapReduce.replace("targets: [mapper_a, mapper_b, mapper_c]", "targets: [mapper_a, mapper_b, mapper_c");
    const shown = editorIssues(validateSpecYaml(text), text);
    expect(shown).toHaveLength(1);
    expect(shown[0].line).toBe(lineOf(text, "targets: ["));
    expect(shown[0].message).toContain('"[" is never closed');
  });

  it("a misspelt node type is the compiler's one issue, unchanged; duplicates are shown once", () => {
    const text = mapReduce.replace("node_type: function", "node_type: functon");
    const raw = validateSpecYaml(text);
    expect(editorIssues(raw, text)).toEqual(raw);
    expect(raw).toHaveLength(1);
    expect(raw[0].message).toMatch(/unknown node_type "functon"/);
    expect(editorIssues([...raw, ...raw], text)).toEqual(raw);
  });
});
