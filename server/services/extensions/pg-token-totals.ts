import type { TokenTotals } from "@/server/agent/extensions/builtin/token-totals";
import type { PgQueryable } from "@/server/db/pg/pg-database";

const SQL = {
  get: "SELECT tokens FROM token_budget_totals WHERE scope = $1",
  // One statement: two workers adding to one instance's total at once both count (the row lock orders them).
  add: `INSERT INTO token_budget_totals AS t (scope, tokens, updated_at) VALUES ($1, $2, $3)
    ON CONFLICT (scope) DO UPDATE SET tokens = t.tokens + excluded.tokens, updated_at = excluded.updated_at`,
  forget: "DELETE FROM token_budget_totals WHERE scope = $1",
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_token_totals_${name}`, text: SQL[name], values });

/** token_budget's totals on PostgreSQL's `token_budget_totals`, shared by every process of the cluster; an add is committed when it resolves. */
export class PgTokenTotals implements TokenTotals {
  constructor(private readonly db: PgQueryable) {}

  async get(scope: string): Promise<number> {
    const { rows } = await this.db.query<{ tokens: string }>(q("get", [scope]));
    return rows.length === 0 ? 0 : Number(rows[0].tokens);
  }

  async add(scope: string, tokens: number): Promise<void> {
    await this.db.query(q("add", [scope, tokens, Date.now()]));
  }

  async forget(scope: string): Promise<void> {
    await this.db.query(q("forget", [scope]));
  }
}
