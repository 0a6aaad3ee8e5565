import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ServiceError } from "./errors";
import { IdempotencyService, RESERVATION_STALE_MS } from "./idempotency-service";
import { InMemoryIdempotencyStore } from "./idempotency-store";

describe("IdempotencyService, a duplicate racing the first request", () => {
  it("refused because the first already did the work (409), it answers the first request's answer", async () => {
    const service = new IdempotencyService(new InMemoryIdempotencyStore());
    let claimed: () => void = () => {};
    const firstClaimed = new Promise<void>((r) => (claimed = r));
    const call = (execute: (claim: (ref: string) => void) => Promise<{ by: string }>) =>
      service.run({ key: "k", scope: "decide:1", request: { approved: true }, status: 200, execute, reconstruct: async () => ({ by: "rebuilt from the first" }) });
    // The duplicate looked for the key before the first claimed it; by its own check, the decision is made.
    const duplicate = call(async () => {
      await firstClaimed;
      throw new ServiceError("INVALID_STATE", "no agent waits for an approval");
    });
    const first = call(async (claim) => {
      claim("1");
      claimed();
      return { by: "first" };
    });
    expect(await first).toMatchObject({ replayed: false, body: { by: "first" } });
    expect(await duplicate).toMatchObject({ replayed: true, status: 200 });
  });

  it("refused while the first is still at work with no answer to rebuild yet, it keeps its own error and the first's key", async () => {
    const store = new InMemoryIdempotencyStore();
    const service = new IdempotencyService(store);
    let claimed: () => void = () => {};
    const firstClaimed = new Promise<void>((r) => (claimed = r));
    let finish: () => void = () => {};
    const firstHolds = new Promise<void>((r) => (finish = r));
    const call = (execute: (claim: (ref: string) => void) => Promise<{ by: string }>) =>
      service.run({ key: "k", scope: "reinvoke:1", request: 2, status: 200, execute, reconstruct: async () => null });
    const duplicate = call(async () => {
      await firstClaimed;
      throw new ServiceError("INVALID_STATE", "only a completed or failed instance takes new input");
    });
    const first = call(async (claim) => {
      claim("2");
      claimed();
      await firstHolds;
      return { by: "first" };
    });
    await expect(duplicate).rejects.toMatchObject({ code: "INVALID_STATE" });
    expect(store.get("reinvoke:1", "k")).not.toBeNull();
    finish();
    expect(await first).toMatchObject({ replayed: false, body: { by: "first" } });
    expect(store.get("reinvoke:1", "k")).toMatchObject({ status: 200, response: { by: "first" } });
  });

  it("a failure of a request whose key nobody claimed stays its own error", async () => {
    const service = new IdempotencyService(new InMemoryIdempotencyStore());
    const failing = service.run({ key: "k", scope: "s", request: 1, status: 200, execute: async () => Promise.reject(new ServiceError("INVALID_STATE", "nothing waits")), reconstruct: async () => null });
    await expect(failing).rejects.toMatchObject({ code: "INVALID_STATE" });
  });
});

describe("IdempotencyService on a store whose key commits apart from the work (PostgreSQL): the key is reserved first", () => {
  const call = (service: IdempotencyService, execute: (claim?: (ref: string) => void) => Promise<{ by: string }>, reconstruct = async (ref: string) => (ref === "r1" ? { by: "rebuilt" } : null)) =>
    service.run({ key: "k", scope: "create", request: 1, status: 201, execute, reconstruct });

  it("a duplicate while the first has made nothing yet is a 409 (in progress); once it has, the duplicate gets its answer", async () => {
    const store = new InMemoryIdempotencyStore(false);
    const service = new IdempotencyService(store);
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let reserved: () => void = () => {};
    const isReserved = new Promise<void>((r) => (reserved = r));
    const first = call(service, async (claim) => {
      reserved();
      await held;
      claim?.("r1");
      return { by: "first" };
    });
    await isReserved;
    expect(store.get("create", "k")).toMatchObject({ reference: "" });
    let ran = false;
    await expect(call(service, async () => ((ran = true), { by: "second" }))).rejects.toMatchObject({ code: "IDEMPOTENCY_IN_PROGRESS", message: expect.stringMatching(/still in progress/) });
    release();
    expect(await first).toEqual({ status: 201, body: { by: "first" }, replayed: false });
    expect(await call(service, async () => ((ran = true), { by: "third" }))).toEqual({ status: 201, body: { by: "first" }, replayed: true });
    expect(ran).toBe(false);
  });

  it("work that fails before it made anything frees the key; work that made something keeps it", async () => {
    const store = new InMemoryIdempotencyStore(false);
    const service = new IdempotencyService(store);
    await expect(call(service, async () => Promise.reject(new ServiceError("INVALID_STATE", "nothing waits")))).rejects.toMatchObject({ code: "INVALID_STATE" });
    expect(store.get("create", "k")).toBeNull();
    await expect(
      call(service, async (claim) => {
        claim?.("r1");
        throw new Error("failed after its commit");
      }),
    ).rejects.toThrow("failed after its commit");
    expect(store.get("create", "k")).toMatchObject({ reference: "r1", status: null });
    expect(await call(service, async () => ({ by: "again" }))).toEqual({ status: 201, body: { by: "rebuilt" }, replayed: true });
  });

  it("a reservation left by a request that died long ago is taken over: the work runs", async () => {
    const store = new InMemoryIdempotencyStore(false);
    const service = new IdempotencyService(store);
    store.put({ scope: "create", key: "k", fingerprint: "", reference: "" });
    const row = store.get("create", "k")!;
    // The same request's fingerprint, reserved before the staleness window.
    const fingerprint = createHash("sha256").update(JSON.stringify(1)).digest("base64url");
    Object.assign(row, { fingerprint, createdAt: Date.now() - RESERVATION_STALE_MS - 1 });
    expect(await call(service, async (claim) => (claim?.("r2"), { by: "retry" }))).toEqual({ status: 201, body: { by: "retry" }, replayed: false });
    expect(store.get("create", "k")).toMatchObject({ reference: "r2", status: 201 });
  });
});
