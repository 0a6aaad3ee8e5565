import { describe } from "vitest";
import { InMemoryChatStore } from "./chat-store";
import { chatStoreTests } from "./testing/chat-store-suite";

describe("ChatStore in memory", () => {
  chatStoreTests({ store: () => new InMemoryChatStore(), transactional: false, keepsOwner: true });
});
