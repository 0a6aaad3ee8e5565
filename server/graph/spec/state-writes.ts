import { StateValidationError } from "../errors";
import { stateFieldAccepts, valueTypeOf, type StateFieldType } from "./state-spec";

/** The declared types of a spec's state fields, by name. */
export type StateFieldTypes = ReadonlyMap<string, StateFieldType>;

/**
 * Writes `value` (a copy) to a spec state field, or throws StateValidationError when the field's declared
 * type refuses it. Checked at the write: a mistyped value stored in the state made the run's state fail
 * its schema on the next load, so a paused run could never resume and nobody was told why.
 */
export function writeStateField(state: Record<string, unknown>, types: StateFieldTypes, field: string, value: unknown): void {
  const type = types.get(field);
  if (type !== undefined && !stateFieldAccepts(type, value)) {
    const shown = JSON.stringify(value) ?? String(value);
    throw new StateValidationError(field, `state field "${field}" is ${type}, not ${valueTypeOf(value)}: ${shown.length > 80 ? `${shown.slice(0, 79)}…` : shown}`);
  }
  state[field] = structuredClone(value);
}
