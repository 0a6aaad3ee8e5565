import { beforeAll, describe, expect, it } from "vitest";
import { env } from "@/server/env";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import * as agentRoute from "./[name]/route";

/** PUT /api/agents/{name} called with Request objects: the YAML itself or JSON { yaml }, and their size limits. */
const BASE = "http://127.0.0.1:3000";

let t: TestServices;
beforeAll(() => {
  t = testServices("memory");
  return installedTestServices(t);
});

const definition = (comment = "") => `${comment ? `# ${comment}\n` : ""}name: sizer\ndescription: Checks the size limits.\ninstructions: Say hello.\n`;

const put = (body: string, contentType: string) =>
  agentRoute.PUT(
    new Request(`${BASE}/api/agents/sizer`, { method: "PUT", headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": contentType }, body }),
    { params: Promise.resolve({ name: "sizer" }) },
  );

describe("PUT /api/agents/{name}", () => {
  it("saves the YAML sent as itself or as JSON { yaml }, once", async () => {
    const first = await put(definition(), "text/yaml");
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ name: "sizer", created: true });
    const again = await put(JSON.stringify({ yaml: definition() }), "application/json");
    expect(await again.json()).toMatchObject({ name: "sizer", created: false });
  });

  it("takes YAML up to MODEX_MAX_SPEC_BYTES, and the JSON carrying it up to twice that for its escaping", async () => {
    // Quotes double in JSON: a YAML under the limit whose JSON is over it.
    const quoted = definition('"'.repeat(Math.floor(env.MODEX_MAX_SPEC_BYTES * 0.6)));
    expect(Buffer.byteLength(JSON.stringify({ yaml: quoted }))).toBeGreaterThan(env.MODEX_MAX_SPEC_BYTES);
    const saved = await put(JSON.stringify({ yaml: quoted }), "application/json");
    expect(saved.status).toBe(200);

    const tooLarge = definition("x".repeat(env.MODEX_MAX_SPEC_BYTES));
    const asYaml = await put(tooLarge, "text/yaml");
    expect(asYaml.status).toBe(413);
    expect(await asYaml.json()).toEqual({ error: { code: "PAYLOAD_TOO_LARGE", message: "the request body is larger than 5 MiB (MODEX_MAX_SPEC_BYTES)" } });
    const asJson = await put(JSON.stringify({ yaml: tooLarge }), "application/json");
    expect(asJson.status).toBe(413);
    expect((await asJson.json()).error.message).toMatch(/^the definition's YAML is 5.0 MiB; at most 5 MiB is accepted \(MODEX_MAX_SPEC_BYTES\)$/);
  });
});

describe("hooks.loop_detection over REST", () => {
  it("takes thresholds, gives them back with GET, and answers an out-of-range one with a located 400", async () => {
    const yaml = `${definition()}hooks:\n  loop_detection: { window: 4, observation_rounds: 1 }\n`;
    expect((await put(yaml, "text/yaml")).status).toBe(200);
    const got = await agentRoute.GET(new Request(`${BASE}/api/agents/sizer`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } }), { params: Promise.resolve({ name: "sizer" }) });
    expect((await got.json()).yaml).toContain("loop_detection: { window: 4, observation_rounds: 1 }");
    const bad = await put(`${definition()}hooks:\n  loop_detection:\n    window: 1\n`, "text/yaml");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.issues).toEqual([expect.objectContaining({ pathText: "hooks.loop_detection.window", line: 6 })]);
  });
});
