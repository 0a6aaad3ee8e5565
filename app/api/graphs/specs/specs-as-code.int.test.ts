import { beforeAll, describe, expect, it } from "vitest";
import { env } from "@/server/env";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { brokenSpec, greetSpec } from "@/server/services/testing/specs-as-code-fixtures";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import * as specsRoute from "./route";
import * as validateRoute from "./validate/route";
import * as specRoute from "./[name]/route";
import * as historyRoute from "./[name]/history/route";

/** Specs as code over REST: POST /api/graphs/specs (save), /validate, GET /{name}, /{name}/history, called with Request objects. */
const BASE = "http://127.0.0.1:3000";
const AUTH = { authorization: `Bearer ${TEST_TOKEN}` };

let t: TestServices;
beforeAll(() => {
  t = testServices();
  return installedTestServices(t);
});

const BROKEN = brokenSpec("broken");

function post(route: typeof specsRoute.POST, body: string, headers: Record<string, string> = { "content-type": "application/yaml" }) {
  return route(new Request(`${BASE}/api/graphs/specs`, { method: "POST", headers: { ...AUTH, ...headers }, body }));
}
const save = (body: string, headers?: Record<string, string>) => post(specsRoute.POST, body, headers);
const validate = (body: string, headers?: Record<string, string>) => post(validateRoute.POST, body, headers);
const params = (name: string) => ({ params: Promise.resolve({ name }) });
const getSpec = (name: string, query = "") => specRoute.GET(new Request(`${BASE}/api/graphs/specs/${encodeURIComponent(name)}${query}`, { headers: AUTH }), params(name));
const history = (name: string) => historyRoute.GET(new Request(`${BASE}/api/graphs/specs/${encodeURIComponent(name)}/history`, { headers: AUTH }), params(name));

describe("POST /api/graphs/specs", () => {
  it("saves a new spec (201 with the revision), then answers 200 unchanged for the same content", async () => {
    const first = await save(greetSpec("as-code"));
    expect(first.status).toBe(201);
    const created = await first.json();
    expect(created).toMatchObject({ name: "as-code", version: "1", nodeCount: 1, created: true, unchanged: false });
    expect(created.specId).toMatch(/^\d+$/);
    expect(created.yaml).toBeUndefined();

    const again = await save(greetSpec("as-code"), { "content-type": "text/plain" });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ specId: created.specId, created: false, unchanged: true });
    expect((await t.services.specs.history("as-code")).length).toBe(1);
  });

  it("takes JSON { yaml } as well", async () => {
    const saved = await save(JSON.stringify({ yaml: greetSpec("as-json") }), { "content-type": "application/json" });
    expect(saved.status).toBe(201);
    expect(await saved.json()).toMatchObject({ name: "as-json", created: true });
  });

  it("refuses a spec that does not compile with every issue located as the editor shows them, and saves nothing", async () => {
    const refused = await save(BROKEN);
    expect(refused.status).toBe(400);
    const { error } = await refused.json();
    expect(error.code).toBe("INVALID_SPEC");
    // The editor's markers come from specs.validate: the very same issues.
    expect(error.issues).toEqual(JSON.parse(JSON.stringify(t.services.specs.validate(BROKEN).issues)));
    expect(error.issues.map((i: { line: number }) => i.line)).toEqual([8, 11]);
    expect(error.issues[0]).toMatchObject({ line: 8, column: 16, pathText: "nodes[1].node_type", message: expect.stringMatching(/^unknown node_type "no_such_type"/) });
    expect(error.issues[1]).toMatchObject({ line: 11, column: 19, pathText: "nodes[2].config.ms" });
    await expect(t.services.specs.history("broken")).rejects.toThrow(/not found/);
  });

  it("saves a text whose name exists as that graph's newest revision, keeping the older (the editor's \"Save as its new version\")", async () => {
    const first = await (await save(greetSpec("shared-name", "one"))).json();
    const second = await save(greetSpec("shared-name", "two"));
    expect(second.status).toBe(201);
    const body = await second.json();
    expect(body.specId).not.toBe(first.specId);
    const revisions = await (await history("shared-name")).json();
    expect(revisions.map((r: { specId: string }) => r.specId)).toEqual([body.specId, first.specId]);
  });

  it("answers a repeat with the same Idempotency-Key as the first time, and refuses the key for another text", async () => {
    const key = { "content-type": "application/yaml", "idempotency-key": "apply-1" };
    const first = await save(greetSpec("keyed"), key);
    expect(first.status).toBe(201);
    const body = await first.json();
    const repeat = await save(greetSpec("keyed"), key);
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    expect(await repeat.json()).toEqual(body);
    const other = await save(greetSpec("keyed", "changed"), key);
    expect(other.status).toBe(422);
    expect((await other.json()).error.code).toBe("IDEMPOTENCY_MISMATCH");
    expect((await t.services.specs.history("keyed")).length).toBe(1);
  });

  it("refuses bad bodies with the REST error envelope: not JSON, JSON without yaml, too large, no token", async () => {
    const notJson = await save("{", { "content-type": "application/json" });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.code).toBe("BAD_REQUEST");
    const noYaml = await save(JSON.stringify({ text: "x" }), { "content-type": "application/json" });
    expect((await noYaml.json()).error).toEqual({ code: "BAD_REQUEST", message: "expected { \"yaml\": \"…\" }" });
    const tooLarge = await save(`${greetSpec("huge")}# ${"x".repeat(env.MODEX_MAX_SPEC_BYTES)}\n`);
    expect(tooLarge.status).toBe(413);
    expect((await tooLarge.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    const anonymous = await specsRoute.POST(new Request(`${BASE}/api/graphs/specs`, { method: "POST", body: greetSpec("anon") }));
    expect(anonymous.status).toBe(401);
  });
});

describe("POST /api/graphs/specs/validate", () => {
  it("answers { ok, issues } and never saves", async () => {
    const good = await validate(greetSpec("never-saved"));
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ ok: true, issues: [] });
    const bad = await validate(JSON.stringify({ yaml: BROKEN }), { "content-type": "application/json" });
    expect(bad.status).toBe(200);
    const body = await bad.json();
    expect(body.ok).toBe(false);
    expect(body.issues.map((i: { line: number }) => i.line)).toEqual([8, 11]);
    await expect(t.services.specs.history("never-saved")).rejects.toThrow(/not found/);
  });
});

describe("GET /api/graphs/specs/{name} and /history", () => {
  it("gives the latest revision with its YAML, one revision by ?revision=, and every revision newest first", async () => {
    const v1 = await (await save(greetSpec("got", "v1"))).json();
    const v2 = await (await save(greetSpec("got", "v2"))).json();
    const latest = await getSpec("got");
    expect(latest.status).toBe(200);
    expect(await latest.json()).toMatchObject({ specId: v2.specId, name: "got", yaml: greetSpec("got", "v2") });
    const older = await (await getSpec("got", `?revision=${v1.specId}`)).json();
    expect(older).toMatchObject({ specId: v1.specId, yaml: greetSpec("got", "v1") });
    const revisions = await (await history("got")).json();
    expect(revisions.map((r: { specId: string }) => r.specId)).toEqual([v2.specId, v1.specId]);
  });

  it("is 404 for a name that does not exist, and for a revision of another spec", async () => {
    const missing = await getSpec("no-such-graph");
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("NOT_FOUND");
    const other = await (await save(greetSpec("elsewhere"))).json();
    expect((await getSpec("got", `?revision=${other.specId}`)).status).toBe(404);
    expect((await getSpec("got", "?revision=abc")).status).toBe(400);
    expect((await history("no-such-graph")).status).toBe(404);
  });

  it("reads and deletes a spec named \"validate\" (the validate route's segment shadows that one name)", async () => {
    const saved = await (await save(greetSpec("validate"))).json();
    const got = await validateRoute.GET(new Request(`${BASE}/api/graphs/specs/validate`, { headers: AUTH }));
    expect(await got.json()).toMatchObject({ specId: saved.specId, name: "validate", yaml: greetSpec("validate") });
    const deleted = await validateRoute.DELETE(new Request(`${BASE}/api/graphs/specs/validate`, { method: "DELETE", headers: AUTH }));
    expect(await deleted.json()).toEqual({ name: "validate", deleted: 1 });
  });
});
