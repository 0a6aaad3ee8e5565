import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SpecError } from "@/server/graph/spec/spec-errors";
import { readSpecYaml } from "./parse-spec-yaml";
import { canonicalJson, sameSpecContent, serializeSpec, specContentHash, specYamlContent } from "./spec-content";

const text = readFileSync(path.resolve(import.meta.dirname, "../../config/graphs/counter-loop.yml"), "utf8");

describe("spec content identity", () => {
  it("canonical JSON sorts keys at every level and drops undefined", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[{"y":2,"z":1}]},"b":1}');
  });

  it("ignores comments, formatting, key order and spelled-out defaults", () => {
    const reformatted = `# a comment\n${text.replace("name: counter-loop\n", "")}\nname: counter-loop\nscheduler: linear\n`;
    expect(specContentHash(readSpecYaml(reformatted))).toBe(specContentHash(readSpecYaml(text)));
    expect(sameSpecContent(readSpecYaml(reformatted), readSpecYaml(text))).toBe(true);
  });

  it("changes with the meaning", () => {
    const edited = text.replace("value: 5", "value: 6");
    expect(specContentHash(readSpecYaml(edited))).not.toBe(specContentHash(readSpecYaml(text)));
  });

  it("specYamlContent returns the spec, its serialization and hash; a bad spec throws the located SpecError", () => {
    const content = specYamlContent(text);
    expect(content.serialized).toBe(serializeSpec(content.spec));
    expect(content.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(content.hash).toBe(specContentHash(content.spec));
    expect(() => specYamlContent("name: [")).toThrow(SpecError);
  });
});
