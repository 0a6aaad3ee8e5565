import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { EventBus } from "@/server/services/event-bus";
import type { SpecService } from "@/server/services/spec-service";
import { CATCH_UP_EVERY_MS, catchUpNotifications } from "./notification-catch-up";
import { NotificationDispatcher, type DispatcherOptions } from "./notification-dispatcher";
import { NotificationService } from "./notification-service";
import type { NotificationStore } from "./notification-store";
import { NotificationWatcher } from "./notification-watcher";

/** Outgoing notifications: the service the API calls, the watcher that fills the outbox, the dispatcher that sends it. */
export interface NotificationServices {
  readonly service: NotificationService;
  readonly watcher: NotificationWatcher;
  readonly dispatcher: NotificationDispatcher;
  /**
   * Start-up: catch up on rows a dead process never wrote, send the outbox (pending rows left by a
   * previous process included), and keep doing both (the catch-up every minute).
   */
  begin(): void;
  /** One catch-up pass (at most one at a time); resolves with how many rows it added. */
  catchUp(): Promise<number>;
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
  let pass: Promise<number> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const onePass = async (): Promise<number> => {
    try {
      const added = await catchUpNotifications({ store: deps.store, load: deps.load, publicUrl: deps.publicUrl });
      if (added > 0) dispatcher.wake();
      return added;
    } catch (error) {
      console.error(`[modex] notification catch-up failed: ${error instanceof Error ? error.message : String(error)}`);
      return 0;
    } finally {
      pass = null;
    }
  };
  const catchUp = (): Promise<number> => (pass ??= onePass());
  return {
    service,
    watcher,
    dispatcher,
    catchUp,
    begin: () => {
      dispatcher.start();
      void catchUp();
      // Every minute too: on PostgreSQL a process that died may never start again, while the others run on.
      timer ??= setInterval(() => void catchUp(), CATCH_UP_EVERY_MS);
      timer.unref();
    },
    end: async () => {
      unsubscribe?.();
      unsubscribe = null;
      if (timer) clearInterval(timer);
      timer = null;
      await pass;
      await dispatcher.stop();
    },
  };
}
