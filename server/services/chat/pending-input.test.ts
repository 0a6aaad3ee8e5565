import { describe, expect, it } from "vitest";
import type { ChatEvent, ChatEventBody } from "./chat-event";
import { RESTART_MESSAGE } from "./orphaned-turns";
import { pendingInputOf } from "./pending-input";

let seq = 0;
const ev = (turnId: string, body: ChatEventBody): ChatEvent => ({ seq: ++seq, sessionId: "s", turnId, at: 0, ...body });

describe("the input still waiting behind a chat's running turn, from its event log", () => {
  it("queues in order (INTERRUPT first), forgets a message once its turn started, and a STEER once it steered", () => {
    const events = [
      ev("t1", { type: "user_message", text: "go" }),
      ev("t1", { type: "busy_input", mode: "QUEUE", text: "second" }),
      ev("t1", { type: "busy_input", mode: "QUEUE", text: "third" }),
      ev("t1", { type: "busy_input", mode: "STEER", text: "shorter" }),
      ev("t1", { type: "notice", command: "steer", text: "steered the turn: shorter", isError: false }),
      ev("t1", { type: "busy_input", mode: "STEER", text: "in French" }),
      ev("t1", { type: "turn_completed", stopReason: "completed", content: "ok", tokens: 1, error: null }),
      ev("t2", { type: "queued_started", text: "second" }),
      ev("t2", { type: "busy_input", mode: "INTERRUPT", text: "urgent" }),
      ev("t2", { type: "busy_input", mode: "STEER", text: "be brief" }),
    ];
    // "in French" came too late for t1: it runs as a turn of its own, after what was queued then.
    expect(pendingInputOf(events)).toEqual({ queue: ["urgent", "third", "in French"], steer: ["be brief"] });
  });

  it("a turn the restart ended took what waited behind it along", () => {
    const events = [
      ev("t1", { type: "busy_input", mode: "QUEUE", text: "lost" }),
      ev("t1", { type: "turn_failed", message: RESTART_MESSAGE }),
      ev("t2", { type: "user_message", text: "new" }),
      ev("t2", { type: "busy_input", mode: "QUEUE", text: "kept" }),
    ];
    expect(pendingInputOf(events)).toEqual({ queue: ["kept"], steer: [] });
  });
});
