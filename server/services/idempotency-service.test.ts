import { describe, expect, it } from "vitest";
import { ServiceError } from "./errors";
import { IdempotencyService } from "./idempotency-service";
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
