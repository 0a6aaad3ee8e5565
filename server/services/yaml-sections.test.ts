import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { joinSections, splitTopLevelSections } from "./yaml-sections";

const read = (text: string) => parseDocument(text, { uniqueKeys: true }).toJS();
const readInParts = (text: string, parts: number) => {
  const sections = splitTopLevelSections(text, parts)!;
  return { sections, data: joinSections(sections, sections.texts.map(read)) };
};

describe("splitTopLevelSections and joinSections", () => {
  const spec = (items: number, compact = false) =>
    [
      "# a spec",
      "name: big",
      'version: "1"',
      "nodes:  # the nodes",
      ...Array.from({ length: items }, (_, i) => `  - name: n${i}\n    node_type: function\n    config:\n      targets:\n        - x\n      op: identity`),
      "edges:",
      ...Array.from({ length: items }, (_, i) => `${compact ? "" : "  "}- { from: n${i}, to: n${i + 1} }`),
      "description: last",
      "",
    ].join("\n");

  it("cuts into parts of about equal size whose data, joined, is the document's", () => {
    for (const [text, parts] of [[spec(50), 2], [spec(50, true), 2], [spec(50), 3], [spec(3), 4]] as const) {
      const { sections, data } = readInParts(text, parts);
      expect(sections.texts.length).toBeGreaterThanOrEqual(2);
      expect(data).toEqual(read(text));
      expect(Object.keys(data!)).toEqual(["name", "version", "nodes", "edges", "description"]);
    }
    // A cut inside the long `nodes:` sequence: the second part goes on with its items.
    const { sections } = readInParts(spec(200), 2);
    expect(sections.continues).toEqual([null, "nodes"]);
    expect(sections.texts[1].startsWith("nodes:\n  - name: n")).toBe(true);
    expect(Math.abs(sections.texts[0].length - sections.texts[1].length)).toBeLessThan(200);
  });

  it("answers null for documents it cannot cut safely", () => {
    expect(splitTopLevelSections("a: 1\nb: 2\n", 1)).toBeNull();
    expect(splitTopLevelSections("a: 1\n", 2)).toBeNull(); // one entry
    expect(splitTopLevelSections("a: &x 1\nb: *x\n", 2)).toBeNull(); // an alias may cross parts
    expect(splitTopLevelSections("a: 1\na: 2\n", 2)).toBeNull(); // a repeated key is the whole text's error
    expect(splitTopLevelSections("---\na: 1\nb: 2\n", 2)).toBeNull();
    expect(splitTopLevelSections("%YAML 1.2\n---\na: 1\nb: 2\n", 2)).toBeNull();
    expect(splitTopLevelSections('"a": 1\nb: 2\n', 2)).toBeNull();
    expect(splitTopLevelSections("__proto__: 1\nb: 2\n", 2)).toBeNull();
    expect(splitTopLevelSections("- 1\n- 2\n", 2)).toBeNull(); // a sequence, not a mapping
  });

  it("does not join parts that are not mappings or repeat a key", () => {
    const sections = { texts: ["", ""], continues: [null, null] };
    expect(joinSections(sections, [{ a: 1 }, "text"])).toBeNull();
    expect(joinSections(sections, [{ a: [1] }, { a: [2] }])).toBeNull();
    expect(joinSections({ ...sections, continues: [null, "a"] }, [{ a: [1] }, { a: [2], b: 3 }])).toEqual({ a: [1, 2], b: 3 });
    expect(joinSections(sections, [{ a: 1 }, { constructor: 2 }])).toEqual({ a: 1, constructor: 2 });
  });
});
