import { z } from "zod";
import { defineGraphState } from "../../graph/state";
import type { TurnState } from "../state/turn-state";

/**
 * The ReAct graph's state: the engine's base fields (`resumeTarget`, `result`) plus the turn. The turn is
 * carried by reference (zod passes it through), so nodes and hooks share one TurnState object.
 */
export const ReactGraphState = defineGraphState({
  turn: z.custom<TurnState>((value) => typeof value === "object" && value !== null && "turnId" in value, "a TurnState"),
});
export type ReactGraphState = typeof ReactGraphState;
