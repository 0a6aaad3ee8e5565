import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as clusterRoute from "@/app/api/cluster/route";
import * as healthRoute from "@/app/api/health/route";
import * as answerRoute from "@/app/api/graphs/instances/[id]/answer/route";
import * as breakpointsRoute from "@/app/api/graphs/instances/[id]/breakpoints/route";
import * as deliverRoute from "@/app/api/graphs/instances/[id]/deliver/route";
import * as eventsRoute from "@/app/api/graphs/instances/[id]/events/route";
import * as knowledgeRoute from "@/app/api/graphs/instances/[id]/knowledge/route";
import * as approvalsRoute from "@/app/api/graphs/instances/[id]/approvals/route";
import * as traceRoute from "@/app/api/graphs/instances/[id]/trace/route";
import * as pauseRoute from "@/app/api/graphs/instances/[id]/pause/route";
import * as recoverRoute from "@/app/api/graphs/instances/[id]/recover/route";
import * as reinvokeRoute from "@/app/api/graphs/instances/[id]/reinvoke/route";
import * as resumeRoute from "@/app/api/graphs/instances/[id]/resume/route";
import * as instanceRoute from "@/app/api/graphs/instances/[id]/route";
import * as stepRoute from "@/app/api/graphs/instances/[id]/step/route";
import * as stopRoute from "@/app/api/graphs/instances/[id]/stop/route";
import * as instancesRoute from "@/app/api/graphs/instances/route";
import * as specsRoute from "@/app/api/graphs/specs/route";
import * as specValidateRoute from "@/app/api/graphs/specs/validate/route";
import * as nodeTypesRoute from "@/app/api/graphs/node-types/route";
import * as specRoute from "@/app/api/graphs/specs/[name]/route";
import * as specHistoryRoute from "@/app/api/graphs/specs/[name]/history/route";
import * as approveRoute from "@/app/api/graphs/instances/[id]/approve/route";
import * as denyRoute from "@/app/api/graphs/instances/[id]/deny/route";
import * as agentsRoute from "@/app/api/agents/route";
import * as agentRoute from "@/app/api/agents/[name]/route";
import * as agentHistoryRoute from "@/app/api/agents/[name]/history/route";
import * as chatsRoute from "@/app/api/chat/route";
import * as chatRoute from "@/app/api/chat/[id]/route";
import * as chatApproveRoute from "@/app/api/chat/[id]/approve/route";
import * as chatMessagesRoute from "@/app/api/chat/[id]/messages/route";
import * as hooksRoute from "@/app/api/triggers/hooks/route";
import * as schedulesRoute from "@/app/api/triggers/schedules/route";
import * as schedulePauseRoute from "@/app/api/triggers/schedules/[name]/pause/route";
import * as scheduleRoute from "@/app/api/triggers/schedules/[name]/route";
import * as notificationsRoute from "@/app/api/notifications/route";
import * as notificationRoute from "@/app/api/notifications/[id]/route";
import * as notificationTestRoute from "@/app/api/notifications/[id]/test/route";
import * as notificationDeliveriesRoute from "@/app/api/notifications/[id]/deliveries/route";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Response | Promise<Response>;

const ROUTES: [RegExp, Record<string, unknown>][] = [
  [/^\/api\/health$/, healthRoute],
  [/^\/api\/cluster$/, clusterRoute],
  [/^\/api\/graphs\/specs$/, specsRoute],
  // Before {name}: as in Next, the static segment wins.
  [/^\/api\/graphs\/specs\/validate$/, specValidateRoute],
  [/^\/api\/graphs\/specs\/([^/]+)$/, specRoute],
  [/^\/api\/graphs\/specs\/([^/]+)\/history$/, specHistoryRoute],
  [/^\/api\/graphs\/node-types$/, nodeTypesRoute],
  [/^\/api\/graphs\/instances$/, instancesRoute],
  [/^\/api\/graphs\/instances\/([^/]+)$/, instanceRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/events$/, eventsRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/knowledge$/, knowledgeRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/approvals$/, approvalsRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/trace$/, traceRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/pause$/, pauseRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/stop$/, stopRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/resume$/, resumeRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/deliver$/, deliverRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/answer$/, answerRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/reinvoke$/, reinvokeRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/recover$/, recoverRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/step$/, stepRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/breakpoints$/, breakpointsRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/approve$/, approveRoute],
  [/^\/api\/graphs\/instances\/([^/]+)\/deny$/, denyRoute],
  [/^\/api\/agents$/, agentsRoute],
  [/^\/api\/agents\/([^/]+)$/, agentRoute],
  [/^\/api\/agents\/([^/]+)\/history$/, agentHistoryRoute],
  [/^\/api\/chat$/, chatsRoute],
  [/^\/api\/chat\/([^/]+)$/, chatRoute],
  [/^\/api\/chat\/([^/]+)\/messages$/, chatMessagesRoute],
  [/^\/api\/chat\/([^/]+)\/approve$/, chatApproveRoute],
  [/^\/api\/triggers\/hooks$/, hooksRoute],
  [/^\/api\/triggers\/schedules$/, schedulesRoute],
  [/^\/api\/triggers\/schedules\/([^/]+)$/, scheduleRoute],
  [/^\/api\/triggers\/schedules\/([^/]+)\/pause$/, schedulePauseRoute],
  [/^\/api\/notifications$/, notificationsRoute],
  [/^\/api\/notifications\/([^/]+)$/, notificationRoute],
  [/^\/api\/notifications\/([^/]+)\/test$/, notificationTestRoute],
  [/^\/api\/notifications\/([^/]+)\/deliveries$/, notificationDeliveriesRoute],
];

/** Next's answer to a path no route serves: its HTML 404 page, not the API's JSON error. */
const NEXT_404 = "<!DOCTYPE html><html><head><title>404: This page could not be found.</title></head><body>404</body></html>";

/** Says whether to drop the answer to a request: the server does the work, the client never hears. */
type DropAnswer = (method: string, pathname: string) => boolean;

/**
 * The app's REST route handlers behind a real HTTP server, on the services installed with
 * installAppServices: what `next start` serves under /api, without the build. `stop()` drops every
 * connection and `start()` listens again on the same port: a server restart as a client sees it.
 * `dropAnswer` makes a request's connection break after the route handled it (the case an
 * Idempotency-Key is for).
 */
export class RestStandIn implements AsyncDisposable {
  private server: Server | null = null;
  private port = 0;
  dropAnswer: DropAnswer = () => false;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => void serve(req, res, this.dropAnswer));
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(this.port, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

async function serve(req: IncomingMessage, res: ServerResponse, dropAnswer: DropAnswer) {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const url = new URL(req.url!, `http://${req.headers.host}`);
  const match = ROUTES.map(([re, mod]) => [re.exec(url.pathname), mod] as const).find(([m]) => m);
  const handler = match?.[1][req.method!] as Handler | undefined;
  if (!match || !handler) {
    res.writeHead(404, { "content-type": "text/html; charset=utf-8" }).end(NEXT_404);
    return;
  }
  const request = new Request(url, {
    method: req.method,
    headers: req.headers as Record<string, string>,
    body: req.method === "GET" ? undefined : Buffer.concat(chunks),
  });
  // The one path parameter, under both names the routes use (`[id]`, `[name]`).
  const param = decodeURIComponent(match[0]![1] ?? "");
  const response = await handler(request, { params: Promise.resolve({ id: param, name: param }) });
  if (dropAnswer(req.method!, url.pathname)) {
    req.socket.destroy();
    return;
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}
