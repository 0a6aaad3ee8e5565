import type { Awaitable } from "@/server/graph/awaitable";
import { isServiceError, ServiceError } from "./errors";
import type { InstanceControl } from "./instance-control";
import type { InstanceListPage, InstanceListQuery } from "./instance-listing";

export const BULK_ACTIONS = ["archive", "unarchive", "delete"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** The most instances one request may act on; beyond it the request is refused before anything is done. */
export const BULK_CAP = 10_000;
/** Instances acted on at once: their commits share the group commit, and a request never holds more in flight. */
const BATCH = 50;
const ID_PAGE = 500;

/** The listing's filter without its paging: what "every instance matching" means. */
export type BulkFilter = Omit<InstanceListQuery, "cursor" | "limit">;

/** Exactly one of `ids` and `filter`. */
export interface BulkRequest {
  action: BulkAction;
  ids?: readonly string[];
  filter?: BulkFilter;
}

export interface BulkSkip {
  instanceId: string;
  /** running: a delete refused while it runs; not_found: gone already; failed: any other refusal. */
  reason: "running" | "not_found" | "failed";
  message: string;
}

export interface BulkResult {
  action: BulkAction;
  /** Instances the request named or its filter matched. */
  matched: number;
  done: number;
  skipped: BulkSkip[];
}

interface BulkDeps {
  control: Pick<InstanceControl, "archive" | "delete">;
  listing: { page(query: InstanceListQuery): Awaitable<InstanceListPage> };
  cap?: number;
  /** Rows read per listing page while a filter's ids are collected (default 500). */
  idPage?: number;
}

/**
 * Archive, unarchive or delete many instances: named ones, or every one a list filter matches. Each goes
 * through the control plane's single-instance command, so a bulk delete removes exactly what one delete
 * removes and is refused where one is (a running instance is skipped, with why). A filter's ids are
 * collected first, then acted on, so acting cannot move the filter's pages under it.
 */
export class InstanceBulkActions {
  constructor(private readonly deps: BulkDeps) {}

  async apply(request: BulkRequest): Promise<BulkResult> {
    const ids = await this.idsOf(request);
    const done: string[] = [];
    const skipped: BulkSkip[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      await Promise.all(
        ids.slice(i, i + BATCH).map((id) =>
          this.act(request.action, id).then(
            () => void done.push(id),
            (error: unknown) => void skipped.push(skipOf(id, error)),
          ),
        ),
      );
    }
    return { action: request.action, matched: ids.length, done: done.length, skipped };
  }

  private act(action: BulkAction, id: string): Promise<unknown> {
    switch (action) {
      case "archive":
        return this.deps.control.archive(id, true);
      case "unarchive":
        return this.deps.control.archive(id, false);
      case "delete":
        return this.deps.control.delete(id);
    }
  }

  private async idsOf(request: BulkRequest): Promise<string[]> {
    const cap = this.deps.cap ?? BULK_CAP;
    if ((request.ids === undefined) === (request.filter === undefined)) {
      throw new ServiceError("BAD_REQUEST", "give either ids or filter, not both or neither");
    }
    if (request.ids !== undefined) {
      const ids = [...new Set(request.ids)];
      if (ids.length > cap) throw tooMany(ids.length, cap);
      return ids;
    }
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.listing.page({ ...request.filter, cursor, limit: this.deps.idPage ?? ID_PAGE });
      if (page.total > cap) throw tooMany(page.total, cap);
      ids.push(...page.items.map((r) => r.instanceId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined && ids.length < cap);
    return ids;
  }
}

function tooMany(n: number, cap: number): ServiceError {
  return new ServiceError("BAD_REQUEST", `${n} instances match; one request acts on at most ${cap}: narrow the filter (or send fewer ids) and repeat`);
}

function skipOf(instanceId: string, error: unknown): BulkSkip {
  const message = error instanceof Error ? error.message : String(error);
  if (!isServiceError(error)) return { instanceId, reason: "failed", message };
  const reason = error.code === "INVALID_STATE" ? "running" : error.code === "NOT_FOUND" ? "not_found" : "failed";
  return { instanceId, reason, message };
}
