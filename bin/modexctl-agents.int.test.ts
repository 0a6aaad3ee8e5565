import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { testServices, type TestServices } from "@/server/services/testing/test-services";
import { cli, getJson } from "./testing/cli-in-process";
import { RestStandIn } from "./testing/rest-stand-in";

/** An agent's revisions over REST (GET /api/agents/{name}?revision=, …/history) and modexctl agents --history|--show, on real services (SQLite). */

const helper = (instructions: string) => `name: rev-helper\ndescription: Helps.\ninstructions: ${instructions}\n`;

describe("an agent's revisions over REST and modexctl", () => {
  let t: TestServices;
  let server: RestStandIn;
  let older: string;
  let newer: string;

  beforeAll(() => {
    t = testServices();
    return installedTestServices(t);
  });
  beforeAll(async () => {
    server = await new RestStandIn().start();
    older = (await t.services.agents.save(helper("Help."))).agentId;
    newer = (await t.services.agents.save(helper("Help at length."))).agentId;
  });
  afterAll(() => server.stop());

  it("GET …/history lists every revision newest first, with its size; ?revision= serves an older one's YAML", async () => {
    const history = await getJson(server.url, "/api/agents/rev-helper/history");
    expect(history.status).toBe(200);
    expect(history.body).toEqual([
      expect.objectContaining({ agentId: newer, bytes: helper("Help at length.").length, createdAt: expect.any(Number) }),
      expect.objectContaining({ agentId: older, bytes: helper("Help.").length }),
    ]);
    expect((await getJson(server.url, `/api/agents/rev-helper?revision=${older}`)).body).toMatchObject({ agentId: older, yaml: helper("Help.") });
    expect((await getJson(server.url, "/api/agents/rev-helper")).body).toMatchObject({ agentId: newer });
    // Another agent's revision is not this one's; a name with no revisions has no history.
    const coder = (await t.services.agents.get("coder")).agentId;
    expect((await getJson(server.url, `/api/agents/rev-helper?revision=${coder}`)).status).toBe(404);
    expect((await getJson(server.url, "/api/agents/nobody/history")).status).toBe(404);
    expect((await getJson(server.url, "/api/agents/rev-helper?revision=latest")).status).toBe(400);
  });

  it("modexctl agents --history prints id, time and size; --show --revision prints that revision's YAML", async () => {
    const history = await cli(server.url, "agents", "--history", "rev-helper");
    expect(history.code, history.err).toBe(0);
    const rows = history.out.split("\n");
    expect(rows[0]).toMatch(/^REVISION\s+SAVED\s+SIZE\s+CONTENT$/);
    expect(rows[2]).toMatch(new RegExp(`^${newer} \\(latest\\)\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+${helper("Help at length.").length} B\\s+[0-9a-f]{12}$`));
    expect(rows[3]).toMatch(new RegExp(`^${older}\\s+.*\\s${helper("Help.").length} B\\s`));
    expect(rows).toHaveLength(4);

    expect((await cli(server.url, "agents", "--show", "rev-helper", "--revision", older)).out).toBe(helper("Help.").trimEnd());
    expect((await cli(server.url, "agents", "--show", "rev-helper")).out).toBe(helper("Help at length.").trimEnd());
    const json = JSON.parse((await cli(server.url, "agents", "--history", "rev-helper", "--json")).out);
    expect(json.map((r: { agentId: string }) => r.agentId)).toEqual([newer, older]);
    const missing = await cli(server.url, "agents", "--history", "nobody");
    expect(missing.code).toBe(2);
    expect(missing.err).toBe("modexctl: agent nobody not found");
  });
});
