import { expect, it } from "vitest";
import { newSnowflake } from "@/server/graph/ids";
import type { AgentRecord, AgentStore } from "../agent-store";

/** What the AgentStore tests need of a backend. */
export interface AgentStoreBackend {
  store(): AgentStore;
  /** A store on new connections to the same database (another process); the same store in memory. */
  reopened?(): AgentStore;
}

let clock = 1_700_000_000_000;
const revision = (name: string, hash: string, patch: Partial<AgentRecord> = {}): AgentRecord => ({
  agentId: newSnowflake(),
  name,
  yaml: `name: ${name}\n# ${hash}\n`,
  contentHash: `sha256:${hash}`,
  createdAt: ++clock,
  ...patch,
});

/** Revisions are inserted only when the content changed; the latest of a name is the newest row. */
export function agentStoreTests(backend: AgentStoreBackend): void {
  const reader = (store: AgentStore) => backend.reopened?.() ?? store;

  it("inserts a revision only when the content changed, and answers the latest one", async () => {
    const store = backend.store();
    const name = `coder-${newSnowflake()}`;
    const first = revision(name, "a");
    expect(await store.insertIfChanged(first)).toEqual(first);
    expect(await store.insertIfChanged(revision(name, "a"))).toEqual(first);
    const second = revision(name, "b");
    expect(await store.insertIfChanged(second)).toEqual(second);
    const other = reader(store);
    expect(await other.latest(name)).toEqual(second);
    expect(await other.history(name)).toEqual([second, first]);
    expect(await other.get(first.agentId)).toEqual(first);
    expect(await other.get("nothing")).toBeNull();
    expect(await other.latest("nobody")).toBeNull();
    expect(await other.history("nobody")).toEqual([]);
  });

  it("orders revisions of the same millisecond by id, and lists the latest of every name by name (byte order)", async () => {
    const store = backend.store();
    const tag = newSnowflake();
    const at = ++clock;
    const older = revision(`a-${tag}`, "1", { createdAt: at });
    const newer = revision(`a-${tag}`, "2", { createdAt: at });
    await store.insertIfChanged(older);
    await store.insertIfChanged(newer);
    const upper = revision(`B-${tag}`, "1");
    await store.insertIfChanged(upper);
    const listed = (await reader(store).listLatest()).filter((r) => r.name.endsWith(tag));
    expect(listed).toEqual([upper, newer]);
  });

  it("two saves of the same content at once make one revision", async () => {
    const [a, b] = [backend.store(), backend.reopened?.() ?? backend.store()];
    const name = `twice-${newSnowflake()}`;
    const [x, y] = await Promise.all([a.insertIfChanged(revision(name, "same")), b.insertIfChanged(revision(name, "same"))]);
    expect(x).toEqual(y);
    expect(await a.history(name)).toHaveLength(1);
  });
}
