/**
 * A real TCP proxy (node:net) in front of a real server, for fault tests: `stop()` cuts it
 * (stops listening and destroys every connection it carries: connections die, new ones are
 * refused) and `start()` restores it on the same port.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly upstreams = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** A proxy to the server `real` points at (`defaultPort` when the URL names none). */
  static to(real: URL, defaultPort: number): TcpProxy {
    return new TcpProxy({ host: real.hostname, port: Number(real.port || defaultPort) });
  }

  /** Listens (again) on 127.0.0.1: a free port the first time, the same port afterwards. */
  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      this.sockets.add(client);
      this.sockets.add(upstream);
      this.upstreams.add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
        this.upstreams.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  /** Local ports of the connections the proxy holds to the server (as the server sees them). */
  upstreamPorts(): Set<number> {
    return new Set([...this.upstreams].map((s) => s.localPort).filter((p): p is number => p !== undefined));
  }

  /** Cuts the proxy: stops listening and destroys every connection it carries. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.upstreams.clear();
    await closed;
  }

  /** This proxy's URL for the server `real` points at. */
  url(real: URL): string {
    const via = new URL(real.href);
    via.hostname = '127.0.0.1';
    via.port = String(this.port);
    return via.href;
  }
}
