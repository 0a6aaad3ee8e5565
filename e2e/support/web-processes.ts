import { ModexServer, removeDir, tempDir } from "./modex-server";

/** How long a web process gets to stop on SIGTERM before it is killed (a test that failed mid-turn). */
const STOP_GRACE_MS = 15_000;

/**
 * Web processes (MODEX_ROLE=web, `npm run start`) of one PostgreSQL database, each a production server
 * with a data directory of its own: the cluster specs' start-up. Disposable (`await using`): stops each
 * (SIGTERM, then SIGKILL after a grace; one a test already stopped or killed is only waited for) and
 * removes the data directories.
 */
export class WebProcesses implements AsyncDisposable {
  private constructor(
    readonly servers: ModexServer[],
    private readonly dataDirs: string[],
  ) {}

  static async start(options: { databaseUrl: string; count: number; env?: Record<string, string> }): Promise<WebProcesses> {
    const dataDirs = Array.from({ length: options.count }, () => tempDir("modex-web-"));
    const env = { DATABASE_URL: options.databaseUrl, MODEX_ROLE: "web", ...options.env };
    const servers = await Promise.all(dataDirs.map((dataDir) => ModexServer.start({ dataDir, env })));
    return new WebProcesses(servers, dataDirs);
  }

  /** The servers, once each says it runs. */
  async ready(): Promise<ModexServer[]> {
    await Promise.all(this.servers.map((s) => s.ready()));
    return this.servers;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all(
      this.servers.map(async (s) => {
        const killLater = setTimeout(() => void s.killHard(), STOP_GRACE_MS);
        await s.stop();
        clearTimeout(killLater);
      }),
    );
    this.dataDirs.forEach(removeDir);
  }
}
