import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocument, stringify } from "yaml";
import { readPlainYamlHere } from "./plain-yaml";

/**
 * readPlainYaml (js-yaml) must never give data that the `yaml` package would not: whenever it answers,
 * `yaml` reads the same text without errors into equal data. Where it declines, the caller reads with `yaml`.
 */

const CONFIG = path.resolve(import.meta.dirname, "../../config");
const examples = ["graphs", "agents"].flatMap((dir) =>
  readdirSync(path.join(CONFIG, dir))
    .filter((f) => f.endsWith(".yml"))
    .map((f) => readFileSync(path.join(CONFIG, dir, f), "utf8")),
);

/** What `yaml` reads (as the app's parsers do), or undefined when it reports errors. */
function withYaml(text: string): unknown {
  try {
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, logLevel: "error" });
    return doc.errors.length > 0 ? undefined : doc.toJS({ maxAliasCount: 100 });
  } catch {
    return undefined;
  }
}

function agrees(text: string): boolean {
  const plain = readPlainYamlHere(text);
  if (plain === undefined) return true;
  expect(plain, JSON.stringify(text)).toStrictEqual(withYaml(text));
  return true;
}

const SCALARS = [
  "0o17", "0x1F", "017", "0b101", ".inf", "-.Inf", ".NaN", "~", "null", "Null", "NULL", "", "1_000", "yes", "no", "on",
  "True", "TRUE", "tRue", "2020-01-01", "2020-01-01T10:00:00Z", "-.5", "+1", "1e3", ".5", "1.", "+.5e-3", "-0", "12:30:45",
  "'a'", '"\\u00e9"', '"\\x41"', "'it''s'", "a  b", "a #c", "9007199254740993", "123456789012345678901234567890", "x%",
  "!!float 1", "!!str 1", "!custom x", "!!binary aGk=", "&a 1", "*a", "[a, b]", "{a: 1}", "|\n  two\n  lines\n", ">-\n  a\n  b\n",
];

describe("readPlainYaml", () => {
  it("reads every example spec and agent definition, as `yaml` does", () => {
    for (const text of examples) {
      expect(readPlainYamlHere(text)).toBeDefined();
      agrees(text);
    }
  });

  it("agrees with `yaml` on scalars as values and as keys", () => {
    for (const s of SCALARS) {
      agrees(`k: ${s}\n`);
      agrees(`${s}: v\n`);
      agrees(`- ${s}\n- [${s}]\n`);
      agrees(`m: { ${s}: 1 }\n`);
    }
  });

  it("declines what it must leave to `yaml`: tags, anchors, aliases, directives, null keys, several documents, errors", () => {
    for (const text of ["k: !!float 1\n", "a: &x 1\nb: *x\n", "%YAML 1.1\n---\nk: yes\n", "null: a\n", "~: a\n", "{ : a }\n", "a: 1\n---\nb: 2\n", "", "# only\n", "a: 1\na: 2\n", "a: [1\n", "? [1, 2]\n: x\n"]) {
      expect(readPlainYamlHere(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it("agrees with `yaml` on any JSON-like value written by `yaml` in block and flow styles, and reads most itself", () => {
    let read = 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.boolean(), (value, flow) => {
        const text = stringify({ root: value }, { collectionStyle: flow ? "flow" : "block" });
        if (readPlainYamlHere(text) !== undefined) read += 1;
        return agrees(text);
      }),
      { numRuns: 300 },
    );
    expect(read).toBeGreaterThan(100);
  });

  it("agrees with `yaml` on random YAML-shaped text and on edited examples", () => {
    const alphabet = fc.constantFrom(..."ab1:-_ \n\t#'\"[]{},?|>~.0xe+&*!%@`\\".split(""));
    fc.assert(fc.property(fc.string({ unit: alphabet, maxLength: 60 }), agrees), { numRuns: 2_000 });
    fc.assert(
      fc.property(fc.constantFrom(...examples), fc.nat(), fc.string({ maxLength: 4 }), (text, at, insert) => {
        const i = at % (text.length + 1);
        return agrees(text.slice(0, i) + insert + text.slice(i));
      }),
      { numRuns: 1_000 },
    );
  });
});
