import path from "node:path";
import { z } from "zod";

/** A worker process's configuration (`npm run worker`), read once from the environment. */
const schema = z.object({
  DATABASE_URL: z
    .string({ error: (issue) => (issue.input === undefined ? "unset: a worker runs the instances of one PostgreSQL database, the web processes' (DATABASE_URL=postgresql://…)" : undefined) })
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgresql:// URL"),
  MODEX_ROLE: z.enum(["worker", "web", "all"]).default("worker"),
  MODEX_SPECS_DIR: z.string().min(1).default("./config/graphs"),
  MODEX_LEASE_MS: z.coerce.number().int().min(500).default(10_000),
  MODEX_WORKER_CONCURRENCY: z.coerce.number().int().min(1).default(16),
  MODEX_WORKER_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(6),
  MODEX_WORKER_ID: z.string().regex(/^[A-Za-z0-9_.:-]+$/).optional(),
  MODEX_WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export interface WorkerEnv {
  databaseUrl: string;
  specsDir: string;
  leaseMs: number;
  concurrency: number;
  /** Connections of each of the engine's two pools. */
  connections: number;
  workerId?: string;
  healthPort?: number;
}

export function readWorkerEnv(env: NodeJS.ProcessEnv = process.env): WorkerEnv {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new Error(`worker configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const e = parsed.data;
  if (e.MODEX_ROLE !== "worker") throw new Error(`npm run worker needs MODEX_ROLE=worker (or unset), not ${e.MODEX_ROLE}`);
  return {
    databaseUrl: e.DATABASE_URL,
    specsDir: path.resolve(e.MODEX_SPECS_DIR),
    leaseMs: e.MODEX_LEASE_MS,
    concurrency: e.MODEX_WORKER_CONCURRENCY,
    connections: e.MODEX_WORKER_CONNECTIONS,
    workerId: e.MODEX_WORKER_ID,
    healthPort: e.MODEX_WORKER_HEALTH_PORT,
  };
}
