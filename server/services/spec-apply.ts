import type { IdempotencyService, IdempotentAnswer } from "./idempotency-service";
import type { SpecService, SpecSummary } from "./spec-service";

/** What saving a spec over REST answers: the revision that is now the latest, and whether it is new. */
export interface AppliedSpec extends SpecSummary {
  created: boolean;
  /** The latest revision of the name already had this content: nothing was saved. */
  unchanged: boolean;
}

/**
 * Saves a spec (the same `saveAsync` as the editor's tRPC specs.save) with an optional Idempotency-Key.
 * Saving is idempotent by content already (an unchanged text saves nothing); the key adds what content
 * cannot: a retry gets the first answer (201 `created`, not 200 `unchanged`), and the key reused for
 * another text is refused (422) rather than saving it.
 *
 * The key is claimed right after the save commits, not in its transaction (the spec store takes no
 * claim). A crash in between leaves the key unclaimed: the retry saves again, which the content dedup
 * turns into `unchanged` with the same revision, so nothing is saved twice either way.
 */
export async function applySpec(deps: { specs: SpecService; idempotency: IdempotencyService }, yaml: string, key: string | null): Promise<IdempotentAnswer<AppliedSpec>> {
  return deps.idempotency.run({
    key,
    scope: "spec-save",
    request: yaml,
    // The status the answer is given with is the body's (201 created, 200 unchanged): see specSaveStatus.
    status: 200,
    execute: async (claim) => {
      const saved = await deps.specs.saveAsync(yaml);
      await claim?.(saved.specId);
      const { yaml: _yaml, ...revision } = await deps.specs.get(saved.specId);
      return { ...revision, created: saved.created, unchanged: !saved.created };
    },
    // Not rebuilt: running the save again answers it truthfully (see above).
    reconstruct: async () => null,
  });
}

/** 201 for a new revision, 200 for an unchanged one: the first answer's, on a replay too. */
export const specSaveStatus = (applied: AppliedSpec): number => (applied.created ? 201 : 200);
