import { expect, it } from "vitest";
import { readWorkerEnv } from "./worker-env";

/** Only the variables given (NodeJS.ProcessEnv's type also wants NODE_ENV). */
const only = (vars: Record<string, string>) => vars as NodeJS.ProcessEnv;

it("a worker without DATABASE_URL says what to set and why, not only that a string was expected", () => {
  expect(() => readWorkerEnv(only({}))).toThrow(
    "worker configuration: DATABASE_URL: unset: a worker runs the instances of one PostgreSQL database, the web processes' (DATABASE_URL=postgresql://…)",
  );
  expect(() => readWorkerEnv(only({ DATABASE_URL: "mysql://x" }))).toThrow("DATABASE_URL: DATABASE_URL must be a postgresql:// URL");
  expect(readWorkerEnv(only({ DATABASE_URL: "postgresql://postgres@127.0.0.1/modex" }))).toMatchObject({ databaseUrl: "postgresql://postgres@127.0.0.1/modex", concurrency: 16, leaseMs: 10_000 });
});

it("MODEX_WORKER_CONNECTIONS sets the connections of each engine pool (default 6); a bad value is named", () => {
  const url = "postgresql://postgres@127.0.0.1/modex";
  expect(readWorkerEnv(only({ DATABASE_URL: url })).connections).toBe(6);
  expect(readWorkerEnv(only({ DATABASE_URL: url, MODEX_WORKER_CONNECTIONS: "3" })).connections).toBe(3);
  expect(() => readWorkerEnv(only({ DATABASE_URL: url, MODEX_WORKER_CONNECTIONS: "0" }))).toThrow(/^worker configuration: MODEX_WORKER_CONNECTIONS: /);
});
