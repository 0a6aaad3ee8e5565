import { beforeAll, describe, expect, it } from "vitest";
import { CLIENT_ADDRESS_HEADER } from "@/server/api/http/client-address.mjs";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import * as loginRoute from "./route";

/**
 * The sign-in rate limit under `npm run dev`: no server.mjs stamps the connection's address, so every
 * header a request carries was written by the client (or passed on by Next.js as the client sent it).
 * Its own file: the limiter is one per process, and this process never declares server.mjs's stamp.
 */
const BASE = "http://127.0.0.1:3000";

let t: TestServices;
beforeAll(() => {
  t = testServices("memory");
  return installedTestServices(t);
});

/** A sign-in that claims, in both headers a client can write, to come from `claimed`. */
const signIn = (token: string, claimed: string) =>
  loginRoute.POST(
    new Request(`${BASE}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", [CLIENT_ADDRESS_HEADER]: claimed, "x-forwarded-for": claimed },
      body: JSON.stringify({ token }),
    }),
  );

describe("the sign-in rate limit without server.mjs (npm run dev)", () => {
  it("locks out after ten wrong tokens, however many addresses the client claims", async () => {
    for (let i = 0; i < 10; i++) expect((await signIn("wrong", `203.0.113.${i}`)).status).toBe(401);
    const locked = await signIn(TEST_TOKEN, "192.0.2.200");
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
