import "server-only";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { agentsRouter } from "@/server/api/routers/agents";
import { chatRouter } from "@/server/api/routers/chat";
import { clusterRouter } from "@/server/api/routers/cluster";
import { controlRouter } from "@/server/api/routers/control";
import { agentRunsRouter } from "@/server/api/routers/agent-runs";
import { extensionsRouter } from "@/server/api/routers/extensions";
import { healthRouter } from "@/server/api/routers/health";
import { instancesRouter } from "@/server/api/routers/instances";
import { specsRouter } from "@/server/api/routers/specs";
import { tracesRouter } from "@/server/api/routers/traces";
import { triggersRouter } from "@/server/api/routers/triggers";
import { notificationsRouter } from "@/server/api/routers/notifications";
import { createCallerFactory, createTRPCRouter, mergeRouters } from "@/server/api/trpc";

/**
 * The tRPC contract (clients: `import type { AppRouter }`, RouterInputs, RouterOutputs).
 *
 * - `health` (query, public): { ok, engine, time }.
 * - `specs.list` (with nodeCount and instance counts), `specs.get({spec})`, `specs.history({name})`,
 *   `specs.jsonSchema`, `specs.nodeTypes` (each
 *   node type's name, description and config fields) (queries); `specs.validate({yaml})` → { ok, issues }, `specs.save({yaml})` →
 *   { specId, name, created } (mutations). `spec` is a spec id or a name (its latest revision).
 * - `instances.page({status?, waiting?, graph?, q?, from?, to?, archived?, cursor?, limit?})` → { items,
 *   nextCursor, total, counts }, `instances.list(same)` → one page's items, `instances.get({instanceId,
 *   version?})` → { summary (with versions, spec, input, result, answers, archived, state, stateFields),
 *   topology, invocations, delivers, waitingFor },
 *   `instances.events({instanceId, afterId?, limit? ≤ 10,000})`, `instances.point({instanceId, eventId})` →
 *   { state, initial, asOf, pending, running, unforkable } (queries); `instances.fork({instanceId, eventId,
 *   state?, spec?})` → { instanceId, version, status, forkedFrom } (mutation);
 *   `instances.create({spec, input?, breakpoints?, idempotencyKey?})` → { instanceId, version, status }, `instances.archive({instanceId,
 *   archived?})`, `instances.delete({instanceId})` (CONFLICT while it runs) (mutations);
 *   `instances.onEvent({instanceId, lastEventId?})` (SSE subscription of StoredEvent, tracked by id).
 * - `control.pause | stop | resume({instanceId})`, `control.deliver({instanceId, node, content})`,
 *   `control.answer({instanceId, value})`, `control.reinvoke({instanceId, input})` (mutations) →
 *   { command, instanceId, version, status } (deliver adds { deliverId, pickup }).
 *   `control.decide({instanceId, approved, reason?, transactionId?, idempotencyKey?})`: approve or deny the tool call an
 *   agent node waits on (same answer). `control.recover | step({instanceId})`,
 *   `control.setBreakpoints({instanceId, nodes})` (same answer, plus `breakpoints`).
 * - `agentRuns.approvals({instanceId})` → { waiting, decided }, `agentRuns.knowledge({instanceId})` →
 *   { enabled, files } (queries); `agentRuns.live({instanceId})` (SSE: streamed text of running turns, batched).
 *   `agentRuns.usage({instanceId, version?})` → token totals per instance, model and node (each turn),
 *   priced; `agentRuns.trace({instanceId, node, turnId})` → { title, spans, cost, currency } (queries).
 *
 * - `agents.list`, `agents.get({agent})`, `agents.history({name})`, `agents.tools`, `agents.jsonSchema`
 *   (queries); `agents.validate({yaml})` → { ok, issues }, `agents.save({yaml})` → { agentId, name, created }.
 *
 * - `triggers.schedules`, `triggers.hooks`, `triggers.startedBy({instanceId})` (queries); `triggers.saveSchedule`,
 *   `pauseSchedule | resumeSchedule | deleteSchedule({name})`, `createHook`, `rotateHook | deleteHook({name})`.
 * - `notifications.list`, `notifications.deliveries({id})` (queries); `notifications.create({url, events, graph?})`
 *   (its secret in this answer only), `setEnabled({id, enabled})`, `remove({id})`, `test({id})` (mutations).
 *
 * - `traces.recent({cursor?, limit?, source?: all|chat|node, errorsOnly?})` (query) → { turns, nextCursor }:
 *   the newest finished agent turns, each with where it ran (a chat and its title, or an instance's node
 *   and its graph), its agent, status, stop reason, tokens and duration; `trainingOnly` keeps the training-data
 *   turns. `traces.chooseTraining({spanId, included})` (mutation): a person's choice for one turn (its root span).
 *
 * - `cluster.status` (query): the processes of a PostgreSQL cluster (role, heartbeat, leases), lease
 *   totals and the work queue; `{ mode: "single", process }` on SQLite (server/services/cluster-status.ts).
 *
 * Everything but `health` needs a session cookie or `Authorization: Bearer <token>` (UNAUTHORIZED).
 * Errors: bad arguments BAD_REQUEST with `data.issues` [{path, message}]; a spec that does not compile
 * BAD_REQUEST with `data.specIssues` (path, line, column); unknown ids NOT_FOUND; a command the
 * instance's status does not allow CONFLICT.
 */
export const appRouter = mergeRouters(
  healthRouter, // top level: `health`
  createTRPCRouter({
    specs: specsRouter,
    instances: instancesRouter,
    control: controlRouter,
    chat: chatRouter,
    agents: agentsRouter,
    extensions: extensionsRouter,
    triggers: triggersRouter,
    notifications: notificationsRouter,
    agentRuns: agentRunsRouter,
    cluster: clusterRouter,
    traces: tracesRouter,
  }),
);

export type AppRouter = typeof appRouter;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

export const createCaller = createCallerFactory(appRouter);
