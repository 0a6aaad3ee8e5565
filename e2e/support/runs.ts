import { expect, type APIRequestContext } from "@playwright/test";
import { auth } from "./session";

export { quickSpec, slowSpec } from "../../server/services/testing/run-specs";

/** Starts a run of a saved graph through REST; answers its id once the server has committed it. */
export async function create(request: APIRequestContext, spec: string, input: unknown): Promise<string> {
  const res = await request.post("/api/graphs/instances", { data: { spec, input }, headers: auth() });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { instanceId: string }).instanceId;
}
