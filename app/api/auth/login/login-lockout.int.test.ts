import { beforeAll, describe, expect, it } from "vitest";
import { CLIENT_ADDRESS_HEADER, declareClientAddressStamping } from "@/server/api/http/client-address.mjs";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import * as loginRoute from "./route";

/**
 * The sign-in rate limit through the login route, with the headers server.mjs gives a direct connection
 * (MODEX_TRUST_PROXY off, the default). Its own file: the limiter is one per process.
 */
const BASE = "http://127.0.0.1:3000";

let t: TestServices;
beforeAll(() => {
  declareClientAddressStamping(); // as server.mjs does before Next.js loads
  t = testServices("memory");
  return installedTestServices(t);
});

/** A sign-in from the connection at 198.51.100.7, claiming to come from `forwardedFor`. */
const signIn = (token: string, forwardedFor: string) =>
  loginRoute.POST(
    new Request(`${BASE}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", [CLIENT_ADDRESS_HEADER]: "198.51.100.7", "x-forwarded-for": forwardedFor },
      body: JSON.stringify({ token }),
    }),
  );

describe("the sign-in rate limit of a direct connection", () => {
  it("locks out a client after ten wrong tokens, the right one too, whatever X-Forwarded-For it then claims", async () => {
    for (let i = 0; i < 10; i++) expect((await signIn("wrong", `203.0.113.${i}`)).status).toBe(401);
    const locked = await signIn(TEST_TOKEN, "192.0.2.200");
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await locked.json()).toEqual({ error: { code: "TOO_MANY_REQUESTS", message: expect.stringMatching(/too many failed sign-ins: try again in \d+ s/) } });
  });
});
