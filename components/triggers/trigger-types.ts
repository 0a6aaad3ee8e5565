import type { RouterInputs, RouterOutputs } from "@/server/api/root";

/** The Triggers page's shapes, inferred from the tRPC router (types only). */
export type ScheduleItem = RouterOutputs["triggers"]["schedules"][number];
export type HookItem = RouterOutputs["triggers"]["hooks"][number];
export type HookWithSecret = RouterOutputs["triggers"]["createHook"];
export type ScheduleInput = RouterInputs["triggers"]["saveSchedule"];
export type HookInput = RouterInputs["triggers"]["createHook"];
export type StartedByDto = RouterOutputs["triggers"]["startedBy"];
export type NotificationItem = RouterOutputs["notifications"]["list"][number];
export type NotificationWithSecret = RouterOutputs["notifications"]["create"];
export type NotificationInput = RouterInputs["notifications"]["create"];
export type DeliveryItem = RouterOutputs["notifications"]["deliveries"][number];
