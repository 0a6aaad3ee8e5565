import { expect, it } from "vitest";
import type { SessionRevocationStore } from "../session-revocations";

export interface SessionRevocationsBackend {
  /** A store on empty revocations, and `peer`: another one on the same data (another bundle or web process). */
  fresh(): Promise<{ store: SessionRevocationStore; peer: () => SessionRevocationStore }>;
  /** Lets the time a peer may take to see a revocation pass (the stores' documented refresh). */
  elapse(): Promise<void>;
}

/** The SessionRevocationStore contract, run on the file and on PostgreSQL. */
export function sessionRevocationsConformance(backend: SessionRevocationsBackend): void {
  const DAY = 86_400_000;

  it("a revoked session is refused at once by its store, and by a peer after the refresh; others are not", async () => {
    const { store, peer } = await backend.fresh();
    const other = peer();
    expect(await store.isRevoked("s1")).toBe(false);
    expect(await other.isRevoked("s1")).toBe(false);
    await store.revoke("s1", Date.now() + DAY);
    expect(await store.isRevoked("s1")).toBe(true);
    await backend.elapse();
    expect(await other.isRevoked("s1")).toBe(true);
    expect(await other.isRevoked("s2")).toBe(false);
    expect(await peer().isRevoked("s1")).toBe(true); // a new one (a restart) too
  });

  it("a peer's revocation is seen after the refresh; revoking twice is harmless", async () => {
    const { store, peer } = await backend.fresh();
    const other = peer();
    expect(await store.isRevoked("s3")).toBe(false);
    await other.revoke("s3", Date.now() + DAY);
    await other.revoke("s3", Date.now() + DAY);
    await backend.elapse();
    expect(await store.isRevoked("s3")).toBe(true);
  });

  it("revocations of sessions that have expired anyway are dropped", async () => {
    const { store, peer } = await backend.fresh();
    const now = Date.now();
    await store.revoke("short", now + 1_000, now);
    await store.revoke("long", now + DAY, now + 2_000); // the next logout, after "short" expired
    await backend.elapse();
    const other = peer();
    expect(await other.isRevoked("long")).toBe(true);
    expect(await other.isRevoked("short")).toBe(false);
  });
}
