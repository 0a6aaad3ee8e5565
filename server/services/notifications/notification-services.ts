import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { EventBus } from "@/server/services/event-bus";
import type { SpecService } from "@/server/services/spec-service";
import { NotificationDispatcher, type DispatcherOptions } from "./notification-dispatcher";
import { NotificationService } from "./notification-service";
import type { NotificationStore } from "./notification-store";
import { NotificationWatcher } from "./notification-watcher";

/** Outgoing notifications: the service the API calls, the watcher that fills the outbox, the dispatcher that sends it. */
export interface NotificationServices {
  readonly service: NotificationService;
  readonly watcher: NotificationWatcher;
  readonly dispatcher: NotificationDispatcher;
  /** Start-up: send the outbox (pending rows left by a previous process included), and keep sending it. */
  begin(): void;
  /** No more sends; resolves once those in flight are recorded. */
  end(): Promise<void>;
}

export interface NotificationDeps {
  store: NotificationStore;
  bus: EventBus;
  specs: SpecService;
  load: (instanceId: string) => Promise<GraphInstanceRecord | null>;
  publicUrl: string;
  /** Retry delays, poll interval and timeout (tests shorten them). */
  dispatch?: Omit<DispatcherOptions, "store">;
}

export function createNotificationServices(deps: NotificationDeps): NotificationServices {
  const dispatcher = new NotificationDispatcher({ store: deps.store, ...deps.dispatch });
  const watcher = new NotificationWatcher({ store: deps.store, load: deps.load, publicUrl: deps.publicUrl, enqueued: () => dispatcher.wake() });
  const service = new NotificationService({ store: deps.store, dispatcher, specs: deps.specs });
  // Heard from the start, before recovery re-runs anything: a status change is never missed for being early.
  let unsubscribe: (() => void) | null = deps.bus.subscribeAll((event) => watcher.observe(event));
  return {
    service,
    watcher,
    dispatcher,
    begin: () => {
      dispatcher.start();
    },
    end: async () => {
      unsubscribe?.();
      unsubscribe = null;
      await dispatcher.stop();
    },
  };
}
