import type { TokenTotals } from "@/server/agent/extensions/builtin/token-totals";
import { commitWithRun } from "@/server/db/deferred-transaction";
import type { Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";

const SQL = {
  get: "SELECT tokens FROM token_budget_totals WHERE scope = ?",
  add: `INSERT INTO token_budget_totals AS t (scope, tokens, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (scope) DO UPDATE SET tokens = t.tokens + excluded.tokens, updated_at = excluded.updated_at`,
  forget: "DELETE FROM token_budget_totals WHERE scope = ?",
} as const;

/**
 * token_budget's totals on SQLite's `token_budget_totals`, so a restart continues each instance's total.
 * One server owns the file, and better-sqlite3 is synchronous: a read and an add never interleave with
 * another process's. An add joins the engine's group commit (committed with the run's next step, at the
 * latest the next macrotask), so a model call pays no commit of its own; a crash can lose the tokens of
 * the calls answered in that last moment, never a total.
 */
export class SqliteTokenTotals implements TokenTotals {
  constructor(private readonly db: Database) {}

  get(scope: string): number {
    const row = statement(this.db, SQL.get).get(scope) as { tokens: number | bigint } | undefined;
    return row ? Number(row.tokens) : 0;
  }

  add(scope: string, tokens: number): void {
    commitWithRun(this.db, () => statement(this.db, SQL.add).run(scope, tokens, Date.now()), { oneWrite: true });
  }

  forget(scope: string): void {
    commitWithRun(this.db, () => statement(this.db, SQL.forget).run(scope), { oneWrite: true });
  }
}
