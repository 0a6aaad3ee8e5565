import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadYamlFolder } from "./yaml-folder";

/** The boot-time folder load that specs and agents share: name order, a bad file reported, sync or async saves. */
describe("loadYamlFolder", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const folder = (files: Record<string, string>) => {
    const dir = mkdtempSync(path.join(tmpdir(), "modex-yaml-folder-"));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    return dir;
  };
  const files = { "b.yaml": "b", "a.yml": "a", "bad.yml": "bad", "notes.txt": "ignored", "c.yml": "c-old" };
  const save = (yaml: string) => {
    if (yaml === "bad") throw new Error("does not compile");
    return { name: yaml.replace("-old", ""), created: !yaml.endsWith("-old") };
  };
  const expected = { loaded: ["a", "b", "c"], created: ["a", "b"], failed: [{ file: "bad.yml", message: "does not compile" }] };

  it("answers at once while each save does, in name order, YAML files only", () => {
    expect(loadYamlFolder(folder(files), save)).toEqual(expected);
  });

  it("saves one file after another when saves are awaitable, a rejected one reported", async () => {
    const order: string[] = [];
    const report = loadYamlFolder(folder(files), async (yaml) => {
      order.push(yaml);
      await new Promise((r) => setTimeout(r, 5));
      return save(yaml);
    });
    expect(report).toBeInstanceOf(Promise);
    expect(await report).toEqual(expected);
    expect(order).toEqual(["a", "b", "bad", "c-old"]);
  });

  it("declares nothing for a folder that is not there", () => {
    expect(loadYamlFolder(path.join(tmpdir(), "modex-no-such-folder"), save)).toEqual({ loaded: [], created: [], failed: [] });
  });
});
