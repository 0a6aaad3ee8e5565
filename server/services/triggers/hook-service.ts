import { SCHEDULE_NAME } from "@/server/graph/spec/schedule-spec";
import { ServiceError, notFound } from "@/server/services/errors";
import type { SpecService } from "@/server/services/spec-service";
import { hookCallAuthorized, newHookSecret } from "./hook-auth";
import type { HookAuthMode, HookRecord, HookStore } from "./hook-store";
import { RateLimiter } from "./rate-limiter";

/** What lists show: everything but the secret, which is shown once, when made or rotated. */
export type HookView = Omit<HookRecord, "secret"> & { path: string };
export type HookWithSecret = HookView & { secret: string };

export interface HookInput {
  name: string;
  spec: string;
  auth?: HookAuthMode;
  maxBodyBytes?: number;
  ratePerMinute?: number;
}

export const HOOK_DEFAULTS = { auth: "hmac" as HookAuthMode, maxBodyBytes: 256 * 1024, ratePerMinute: 60 };
export const HOOK_LIMITS = { maxBodyBytes: 10 * 1024 * 1024, ratePerMinute: 100_000 };

/** Why a call was refused, for the route to answer in HTTP. */
export type HookRefusal = { refused: "not_found" } | { refused: "rate_limited"; retryAfterSeconds: number };

/** Webhooks: each bound to a spec, with its own secret (HMAC signature or bearer), body limit and rate limit. */
export class HookService {
  private readonly rates: RateLimiter;

  constructor(private readonly deps: { store: HookStore; specs: SpecService; now?: () => number }) {
    this.rates = new RateLimiter(deps.now);
  }

  async list(): Promise<HookView[]> {
    return (await this.deps.store.list()).map(view);
  }

  async get(name: string): Promise<HookRecord | null> {
    return this.deps.store.get(name);
  }

  async create(input: HookInput): Promise<HookWithSecret> {
    if (!SCHEDULE_NAME.test(input.name)) throw new ServiceError("BAD_REQUEST", "hook names hold letters, digits, _ . - (at most 100)");
    if (await this.deps.store.get(input.name)) throw hookExists(input.name);
    await this.deps.specs.resolve(input.spec); // NOT_FOUND for an unknown spec
    const maxBodyBytes = input.maxBodyBytes ?? HOOK_DEFAULTS.maxBodyBytes;
    const ratePerMinute = input.ratePerMinute ?? HOOK_DEFAULTS.ratePerMinute;
    if (!(maxBodyBytes >= 2 && maxBodyBytes <= HOOK_LIMITS.maxBodyBytes)) throw new ServiceError("BAD_REQUEST", `maxBodyBytes must be 2 to ${HOOK_LIMITS.maxBodyBytes}`);
    if (!(ratePerMinute >= 1 && ratePerMinute <= HOOK_LIMITS.ratePerMinute)) throw new ServiceError("BAD_REQUEST", `ratePerMinute must be 1 to ${HOOK_LIMITS.ratePerMinute}`);
    const now = (this.deps.now ?? Date.now)();
    const record: HookRecord = { name: input.name, spec: input.spec, auth: input.auth ?? HOOK_DEFAULTS.auth, secret: newHookSecret(), maxBodyBytes, ratePerMinute, createdAt: now, rotatedAt: now };
    // Another process may have created it since the check: the store's key decides, one create wins.
    if (!(await this.deps.store.create(record))) throw hookExists(input.name);
    return { ...view(record), secret: record.secret };
  }

  /** A new secret; the old one stops working at once. */
  async rotate(name: string): Promise<HookWithSecret> {
    const hook = await this.require(name);
    const record = { ...hook, secret: newHookSecret(), rotatedAt: (this.deps.now ?? Date.now)() };
    await this.deps.store.put(record);
    return { ...view(record), secret: record.secret };
  }

  async remove(name: string): Promise<{ name: string; removed: true }> {
    await this.require(name);
    await this.deps.store.remove(name);
    this.rates.forget(name);
    return { name, removed: true };
  }

  /** Before the body is read: an unknown hook, or one over its rate (every call counts, signed or not). */
  async admit(name: string): Promise<HookRecord | HookRefusal> {
    const hook = await this.deps.store.get(name);
    if (!hook) return { refused: "not_found" };
    const wait = this.rates.take(name, hook.ratePerMinute);
    return wait > 0 ? { refused: "rate_limited", retryAfterSeconds: wait } : hook;
  }

  /** After the body is read (no further than the hook's limit): its credential. */
  authorized(hook: HookRecord, headers: Headers, body: string): boolean {
    return hookCallAuthorized(hook, headers, body);
  }

  private async require(name: string): Promise<HookRecord> {
    const hook = await this.deps.store.get(name);
    if (!hook) throw notFound("hook", name);
    return hook;
  }
}

/** A hook of that name exists (made earlier, or at the same moment by another process). */
function hookExists(name: string): ServiceError {
  return new ServiceError("INVALID_STATE", `a hook named ${name} exists: delete it first, or rotate its secret`);
}

function view(record: HookRecord): HookView {
  const { secret: _secret, ...rest } = record;
  return { ...rest, path: `/api/hooks/${encodeURIComponent(record.name)}` };
}
