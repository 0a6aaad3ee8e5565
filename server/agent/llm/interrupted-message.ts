import type { AssistantMessage } from "./messages";
import type { InterruptedPartial } from "../state/turn-custom-keys";

/**
 * The assistant message kept in history for a stream a cancel cut short, XML-marked so memory stays
 * aligned with what the user saw.
 */
export function interruptedMessage(partial: InterruptedPartial): AssistantMessage {
  const tools = partial.toolNames.length ? ` tools="${partial.toolNames.join(",")}"` : "";
  return {
    role: "assistant",
    content: `<interrupted${tools}>${partial.content}</interrupted>`,
    ...(partial.reasoning ? { reasoning: partial.reasoning } : {}),
    interrupted: true,
  };
}
