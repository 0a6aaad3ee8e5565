import path from "node:path";
import { z } from "zod";

/**
 * The one place that reads `process.env`. Everything else receives the parsed `env` (or a part of it),
 * so a misconfigured variable fails at start-up with a readable message instead of deep inside a request.
 *
 * Not marked `server-only`: scripts run through tsx (benchmarks, the migration runner) read it too.
 */
const envSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  /** Port `next start` listens on; also where server-side code finds its own HTTP API. */
  PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
  /** Folder for everything Modex persists (the SQLite database first). Created on start-up. */
  MODEX_DATA_DIR: z.string().min(1).default("./data"),
  /** The access token. When unset, one is generated on first start and kept in the data directory. */
  MODEX_TOKEN: z
    .string()
    .min(32, "MODEX_TOKEN must be at least 32 characters (e.g. `openssl rand -hex 24`), or unset it to have one generated")
    .optional(),
  /** Folder of graph specs (`*.yml`) loaded at start-up through saveIfChanged. */
  MODEX_SPECS_DIR: z.string().min(1).default("./config/graphs"),
  /** Fault recovery: re-run instances whose executor died or whose run a storage failure stopped (on by default). */
  MODEX_RECOVERY: z.enum(["on", "off"]).default("on"),
  /**
   * PostgreSQL: a postgresql:// URL. Everything Modex stores then lives there (migrated at start-up) and
   * several processes may share it; unset, the embedded SQLite database under MODEX_DATA_DIR is used.
   */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgresql:// URL (or unset it for the embedded SQLite database)")
    .optional(),
  /**
   * What this process does: `all` (the default: the web app and the runs, one process), `web` (UI, API
   * and live events; runs nothing) or `worker` (runs instances; HTTP for health only). `web` and `worker`
   * share one PostgreSQL database (DATABASE_URL).
   */
  MODEX_ROLE: z.enum(["all", "web", "worker"]).default("all"),
  /**
   * PostgreSQL: the lease time of workers (their instances) and of web processes (their chat turns): a
   * heartbeat renews it every third; a process silent longer is taken for dead.
   */
  MODEX_LEASE_MS: z.coerce.number().int().min(500).default(10_000),
  /** A size quota for the database, in MiB: writes past it answer 507 and lose nothing; reads keep working. */
  MODEX_DB_MAX_MB: z.coerce.number().positive().optional(),
  /** OTLP/HTTP collector (e.g. http://localhost:4318): agent spans are exported there when set. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Span tier of agents whose definition names none: minimal | standard | full (iterations, prompts and responses). */
  MODEX_TRACE_TIER: z.enum(["minimal", "standard", "full"]).default("standard"),
  /** The model price table (YAML: currency, and per model what 1M input/output tokens cost); missing: no costs. */
  MODEX_MODEL_PRICES: z.string().min(1).default("./config/model-prices.yml"),
  /** The model of agent nodes: an OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp) and a model name. */
  MODEX_LLM_BASE_URL: z.url().optional(),
  MODEX_LLM_MODEL: z.string().min(1).optional(),
  /** Its API key, when the server wants one. */
  MODEX_LLM_API_KEY: z.string().min(1).optional(),
  /** Named agents (`*.yml`) loaded at start-up through saveIfChanged, before the specs that use them. */
  MODEX_AGENTS_DIR: z.string().min(1).default("./config/agents"),
  /** Extensions: `extensions.yml` (built-ins and their settings) and extension modules (`*.mjs`, `*.js`) loaded at start-up. */
  MODEX_EXTENSIONS_DIR: z.string().min(1).default("./config/extensions"),
  /** MCP servers (`*.yml`, one server per file) read at start-up; each is started at its first use. */
  MODEX_MCP_DIR: z.string().min(1).default("./config/mcp"),
  /** Hosts the agents' http_fetch tool may GET (comma-separated; `*.example.com` for its subdomains); empty: none. */
  MODEX_FETCH_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((s) => s.split(",").map((h) => h.trim().toLowerCase()).filter((h) => h !== "")),
  /** This server's address as people reach it, for links sent out (a notification's url_to_run); default http://localhost:PORT. */
  MODEX_PUBLIC_URL: z.url().optional(),
  /** Largest JSON request body (REST and tRPC), in bytes: larger ones get 413 before they are read. */
  MODEX_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Largest spec YAML (tRPC specs.save / specs.validate), in bytes. */
  MODEX_MAX_SPEC_BYTES: z.coerce.number().int().min(1024).default(5 * 1024 * 1024),
  /** Deepest nesting of arrays and objects accepted in a JSON body (deeper: 400). */
  MODEX_MAX_JSON_DEPTH: z.coerce.number().int().min(4).max(1000).default(64),
  /** Most procedures in one tRPC batch request (more: 400). */
  MODEX_MAX_BATCH: z.coerce.number().int().min(1).max(1000).default(50),
  /** Behind a reverse proxy: trust its X-Forwarded-Host (Origin and Host checks) and X-Forwarded-For (login rate limit). */
  MODEX_TRUST_PROXY: z.enum(["on", "off"]).default("off"),
  /** Host names (comma-separated) the server answers besides localhost, 127.0.0.1 and [::1]; `*` allows any. */
  MODEX_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((s) => s.split(",").map((h) => h.trim().toLowerCase()).filter((h) => h !== "")),
});

export type Env = Readonly<
  z.infer<typeof envSchema> & {
    /** MODEX_DATA_DIR resolved against the working directory. */
    dataDir: string;
    /** The SQLite database file inside the data directory. */
    databaseFile: string;
    /** Where the generated access token is kept (mode 0600). */
    tokenFile: string;
    /** Sessions ended by a logout before they expire (mode 0600), shared by every module that checks cookies. */
    revokedSessionsFile: string;
    specsDir: string;
    /** MODEX_AGENTS_DIR resolved against the working directory. */
    agentsDir: string;
    /** MODEX_MCP_DIR resolved against the working directory. */
    mcpDir: string;
    /** MODEX_EXTENSIONS_DIR resolved against the working directory. */
    extensionsDir: string;
    /** MODEX_MODEL_PRICES resolved against the working directory. */
    modelPricesFile: string;
  }
>;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = envSchema.refine((e) => e.MODEX_ROLE === "all" || e.DATABASE_URL, {
    message: "MODEX_ROLE=web and MODEX_ROLE=worker share one PostgreSQL database: set DATABASE_URL=postgresql://… (or unset MODEX_ROLE)",
    path: ["MODEX_ROLE"],
  }).safeParse(source);
  if (!parsed.success) {
    throw new Error(`Invalid environment:\n${z.prettifyError(parsed.error)}`);
  }
  const dataDir = path.resolve(parsed.data.MODEX_DATA_DIR);
  return Object.freeze({
    ...parsed.data,
    dataDir,
    databaseFile: path.join(dataDir, "modex.db"),
    tokenFile: path.join(dataDir, "access-token"),
    revokedSessionsFile: path.join(dataDir, "revoked-sessions"),
    specsDir: path.resolve(parsed.data.MODEX_SPECS_DIR),
    agentsDir: path.resolve(parsed.data.MODEX_AGENTS_DIR),
    mcpDir: path.resolve(parsed.data.MODEX_MCP_DIR),
    extensionsDir: path.resolve(parsed.data.MODEX_EXTENSIONS_DIR),
    modelPricesFile: path.resolve(parsed.data.MODEX_MODEL_PRICES),
  });
}

export const env: Env = parseEnv(process.env);
