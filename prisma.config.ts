import { fileURLToPath } from "node:url";
import { defineConfig } from "prisma/config";

const schemaFile = fileURLToPath(new URL("./prisma/schema.prisma", import.meta.url));

// Every prisma CLI command first tries to download a schema-engine binary from a host this machine cannot
// reach. `generate` only checks that the engine path exists, so pointing it at a file that exists but is
// not executable makes `generate`, `validate` and `format` work offline, while `migrate` / `db push` fail
// loudly instead of silently doing nothing. Migrations are applied by server/db/migrate.ts.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= schemaFile;

export default defineConfig({
  schema: schemaFile,
  migrations: { path: fileURLToPath(new URL("./prisma/migrations", import.meta.url)) },
});
