import { expect, type APIRequestContext } from "@playwright/test";
import { auth } from "./session";

/** A graph of one template node: a run of it completes at once, its output "got <input>". */
export const quickSpec = (name: string) => `name: ${name}
version: "1"
nodes:
  - { name: echo, node_type: function, config: { op: template, template: "got {{input}}" } }
edges:
  - { from: __start__, to: echo }
  - { from: echo, to: __end__ }
`;

/** A graph of one delay node: a run of it is running for `ms` (a running run cannot be deleted). */
export const slowSpec = (name: string, ms = 60_000) => `name: ${name}
version: "1"
nodes:
  - { name: nap, node_type: delay, config: { ms: ${ms} } }
edges:
  - { from: __start__, to: nap }
  - { from: nap, to: __end__ }
`;

/** Starts a run of a saved graph through REST; answers its id once the server has committed it. */
export async function create(request: APIRequestContext, spec: string, input: unknown): Promise<string> {
  const res = await request.post("/api/graphs/instances", { data: { spec, input }, headers: auth() });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { instanceId: string }).instanceId;
}
