import { parseDocument } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { NOT_YAML, PARALLEL_MIN_CHARS, YamlParseWorker } from "./yaml-parse-worker";
import { splitTopLevelSections } from "./yaml-sections";

const worker = new YamlParseWorker();
afterAll(() => worker.close());

describe("YamlParseWorker", () => {
  it("reads YAML into the data the calling thread's parser gives", async () => {
    const text = "name: x\nversion: 1.5\nlist: [a, 2, true, null]\nnested:\n  deep: { k: -0.5 }\nanchor: &a { v: 1 }\nalias: *a\nmulti: |\n  two\n  lines\n";
    expect(await worker.parse(text)).toEqual(parseDocument(text).toJS());
  });

  it("answers NOT_YAML for text with YAML errors, duplicate keys included", async () => {
    expect(await worker.parse("nodes: [ unterminated")).toBe(NOT_YAML);
    expect(await worker.parse("a: 1\na: 2\n")).toBe(NOT_YAML);
  });

  it("answers each of several parses in flight with its own text's data", async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `i: ${i}\nname: n${i}\n`);
    expect(await Promise.all(texts.map((t) => worker.parse(t)))).toEqual(texts.map((_, i) => ({ i, name: `n${i}` })));
  });

  it("starts a new worker after it was stopped", async () => {
    await worker.close();
    expect(await worker.parse("a: 1\n")).toEqual({ a: 1 });
  });
});

describe("YamlParseWorker on large documents (read in parts on two threads)", () => {
  const big = (extra = "") =>
    [
      "name: big",
      "description: large enough to be read in parts",
      "nodes:",
      ...Array.from({ length: 6_000 }, (_, i) => `  - name: n${i}\n    node_type: function\n    config: { op: identity }`),
      "edges:",
      ...Array.from({ length: 6_000 }, (_, i) => `  - { from: n${i}, to: n${i + 1} }`),
      extra,
    ].join("\n");

  it("gives the data reading the whole text gives", async () => {
    const text = big();
    expect(text.length).toBeGreaterThan(PARALLEL_MIN_CHARS);
    expect(splitTopLevelSections(text, 2)).not.toBeNull();
    const data = await worker.parse(text);
    expect(data).toEqual(parseDocument(text).toJS());
    expect(Object.keys(data as object)).toEqual(["name", "description", "nodes", "edges"]);
    expect((data as { nodes: unknown[] }).nodes).toHaveLength(6_000);
  });

  it("answers what reading the text whole answers when a part does not read", async () => {
    const whole = (text: string) => {
      const doc = parseDocument(text, { uniqueKeys: true });
      return doc.errors.length > 0 ? NOT_YAML : doc.toJS();
    };
    // A quoted scalar over a cut (the first part does not read), and an error in one part.
    const quoted = `name: big\ndescription: "two\nlines: here"\n${big().slice("name: big\n".length)}`;
    const broken = big().replace("  - { from: n10, to: n11 }", "  - { from: n10, to: [n11 }");
    expect(splitTopLevelSections(broken, 2)).not.toBeNull();
    for (const text of [quoted, broken, big("edges: again\n")]) expect(await worker.parse(text)).toEqual(whole(text));
  });
});
