import { parseDocument } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { NOT_YAML, YamlParseWorker } from "./yaml-parse-worker";

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

describe("YamlParseWorker on large documents", () => {
  const big = (extra = "") =>
    [
      "name: big",
      "description: large",
      "nodes:",
      ...Array.from({ length: 6_000 }, (_, i) => `  - name: n${i}\n    node_type: function\n    config: { op: identity }`),
      "edges:",
      ...Array.from({ length: 6_000 }, (_, i) => `  - { from: n${i}, to: n${i + 1} }`),
      extra,
    ].join("\n");

  it("gives the data the `yaml` package gives, for plain text (js-yaml) and for text left to `yaml` (anchors, tags)", async () => {
    for (const text of [big(), big("shared: &s { a: 1 }\nagain: *s\n"), big("typed: !!str 12\n")]) {
      const data = await worker.parse(text);
      expect(data).toStrictEqual(parseDocument(text).toJS());
      expect((data as { nodes: unknown[] }).nodes).toHaveLength(6_000);
    }
  });

  it("answers NOT_YAML for a large text with an error or a duplicate key", async () => {
    expect(await worker.parse(big().replace("  - { from: n10, to: n11 }", "  - { from: n10, to: [n11 }"))).toBe(NOT_YAML);
    expect(await worker.parse(big("edges: again\n"))).toBe(NOT_YAML);
  });
});
