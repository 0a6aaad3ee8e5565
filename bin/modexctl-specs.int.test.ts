import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { brokenSpec, greetSpec } from "@/server/services/testing/specs-as-code-fixtures";
import { testServices, type TestServices } from "@/server/services/testing/test-services";
import { invoke } from "./testing/cli-in-process";
import { RestStandIn } from "./testing/rest-stand-in";

/** modexctl apply / validate / specs --show|--history against the REST routes on real services: specs kept in files. */

const BROKEN = brokenSpec("broken-file");

describe("modexctl specs as code", () => {
  let t: TestServices;
  let server: RestStandIn;
  const dir = mkdtempSync(path.join(tmpdir(), "modexctl-specs-"));
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  beforeAll(() => {
    t = testServices();
    return installedTestServices(t);
  });
  beforeAll(async () => {
    server = await new RestStandIn().start();
  });
  afterAll(() => server.stop());

  const cli = (argv: string[], stdin?: string) => invoke(server.url, argv, undefined, stdin).done;
  const revisions = async (name: string) => (await t.services.specs.history(name).catch(() => [])).length;

  it("apply saves a new spec, then says it is unchanged", async () => {
    const f = file("first.yml", greetSpec("from-git"));
    const first = await cli(["apply", f]);
    expect(first.code, first.err).toBe(0);
    const latest = await t.services.specs.get("from-git");
    expect(first.out).toBe(`saved from-git as a new revision ${latest.specId}`);
    const again = await cli(["apply", f]);
    expect(again.code).toBe(0);
    expect(again.out).toBe("from-git unchanged");
    expect(await revisions("from-git")).toBe(1);
  });

  it("a file that does not compile prints file:line:column: message per issue, exits 1, and no file of the batch is saved", async () => {
    const good = file("good.yml", greetSpec("batch-good"));
    const bad = file("bad.yml", BROKEN);
    const result = await cli(["apply", good, bad]);
    expect(result.code).toBe(1);
    expect(result.err.split("\n")).toEqual([
      `${bad}:8:16: nodes[1].node_type: unknown node_type "no_such_type"; expected one of: function, delay, human_input, subgraph, fan_out, join, agent`,
      `${bad}:11:19: nodes[2].config.ms: Invalid input: expected number, received string`,
      "modexctl: nothing saved: 1 file does not compile",
    ]);
    expect(result.out).toBe(`${good}: compiles`);
    expect(await revisions("batch-good")).toBe(0);
    expect(await revisions("broken-file")).toBe(0);
  });

  it("validate exits 0 or 1 with the same located lines, and never saves; --json gives each file's issues", async () => {
    const good = file("valid.yml", greetSpec("only-checked"));
    const bad = file("invalid.yml", BROKEN);
    const ok = await cli(["validate", good]);
    expect(ok).toMatchObject({ code: 0, out: `${good}: ok`, err: "" });
    const failed = await cli(["validate", good, bad]);
    expect(failed.code).toBe(1);
    expect(failed.err.split("\n").map((l) => l.split(": ")[0])).toEqual([`${bad}:8:16`, `${bad}:11:19`]);
    const json = await cli(["validate", bad, "--json"]);
    expect(json.code).toBe(1);
    const [report] = JSON.parse(json.out);
    expect(report).toMatchObject({ file: bad, ok: false });
    expect(report.issues.map((i: { line: number; column: number }) => [i.line, i.column])).toEqual([[8, 16], [11, 19]]);
    expect(await revisions("only-checked")).toBe(0);
  });

  it("apply --dry-run checks only", async () => {
    const f = file("dry.yml", greetSpec("dry-run-only"));
    const dry = await cli(["apply", "--dry-run", f]);
    expect(dry).toMatchObject({ code: 0, out: `${f}: compiles (dry run: not saved)` });
    expect(await revisions("dry-run-only")).toBe(0);
  });

  it("reads a spec from stdin with -", async () => {
    const piped = await cli(["apply", "-"], greetSpec("from-stdin"));
    expect(piped.code, piped.err).toBe(0);
    expect(piped.out).toMatch(/^saved from-stdin as a new revision \d+$/);
    const bad = await cli(["validate", "-"], BROKEN);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^<stdin>:8:16: nodes\[1\]\.node_type: /);
  });

  it("a missing file stops the batch before anything is saved", async () => {
    const good = file("before-missing.yml", greetSpec("not-without-its-batch"));
    const missing = path.join(dir, "missing.yml");
    const result = await cli(["apply", good, missing]);
    expect(result.code).toBe(1);
    expect(result.err).toBe(`modexctl: cannot read ${missing}: no such file; nothing was saved`);
    expect(await revisions("not-without-its-batch")).toBe(0);
    const json = await cli(["validate", missing, "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toEqual({ error: { code: "UNREADABLE_FILE", message: `cannot read ${missing}: no such file` } });
  });

  it("a file naming a graph that exists becomes its newest revision, the older kept (the editor's \"Save as its new version\")", async () => {
    const first = await cli(["apply", file("team-a.yml", greetSpec("shared", "from team a"))]);
    const second = await cli(["apply", file("team-b.yml", greetSpec("shared", "from team b"))]);
    expect(second.code).toBe(0);
    const [older, newer] = [first.out, second.out].map((o) => /new revision (\d+)$/.exec(o)![1]);
    expect(newer).not.toBe(older);

    const history = await cli(["specs", "--history", "shared"]);
    expect(history.code).toBe(0);
    const rows = history.out.split("\n");
    expect(rows[0]).toMatch(/^REVISION\s+VERSION\s+SAVED\s+NODES\s+CONTENT$/);
    expect(rows[2]).toMatch(/\s[0-9a-f]{12}$/);
    expect(rows[2]).toMatch(new RegExp(`^${newer} \\(latest\\)\\s+1\\s`));
    expect(rows[3]).toMatch(new RegExp(`^${older}\\s+1\\s`));

    expect((await cli(["specs", "--show", "shared"])).out).toBe(greetSpec("shared", "from team b").trimEnd());
    expect((await cli(["specs", "--show", "shared", "--revision", older])).out).toBe(greetSpec("shared", "from team a").trimEnd());
    const json = JSON.parse((await cli(["specs", "--history", "shared", "--json"])).out);
    expect(json.map((r: { specId: string }) => r.specId)).toEqual([newer, older]);
  });

  it("specs --show of a spec that does not exist exits 2", async () => {
    const missing = await cli(["specs", "--show", "no-such-graph"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toBe("modexctl: spec no-such-graph not found"); // said once, not "not found: … not found"
  });

  it("apply --json prints each file's saved revision", async () => {
    const f = file("json.yml", greetSpec("as-json"));
    const result = await cli(["apply", f, "--json"]);
    expect(result.code).toBe(0);
    const [saved] = JSON.parse(result.out);
    expect(saved).toMatchObject({ file: f, ok: true, saved: { name: "as-json", created: true, unchanged: false } });
  });

  it("a save whose answer was lost is retried with the file's Idempotency-Key: the first answer, not \"unchanged\"", async () => {
    let dropped = 0;
    server.dropAnswer = (method, pathname) => method === "POST" && pathname === "/api/graphs/specs" && dropped++ === 0;
    try {
      const result = await cli(["apply", file("lost.yml", greetSpec("answer-lost"))]);
      expect(result.code, result.err).toBe(0);
      expect(result.out).toMatch(/^saved answer-lost as a new revision \d+$/);
      expect(result.err).toMatch(/Idempotent-Replayed/);
      expect(await revisions("answer-lost")).toBe(1);
    } finally {
      server.dropAnswer = () => false;
    }
  });
});
