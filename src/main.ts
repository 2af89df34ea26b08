import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createRuntime } from './runtime.js';

try {
  process.loadEnvFile?.('.env');
} catch {
  /* no .env file: the environment alone configures the service */
}

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(err.message + '\n');
      process.exit(1);
    }
    throw err;
  }
}

/** One whole instance: migrations, the app, and a graceful stop on SIGTERM/SIGINT. */
async function runInstance(config: Config): Promise<void> {
  const runtime = await createRuntime(config);
  await runtime.app.listen({ port: config.port, host: config.host });
  // A plain line for the person at the terminal (operations.md §14), on stderr so stdout stays
  // JSON lines only; the JSON log has the same URL.
  if (runtime.setupUrl) process.stderr.write(`No account yet. Create the first one at: ${runtime.setupUrl}\n`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    try {
      // Stop accepting, finish in-flight requests, flush clicks and key uses, close pools.
      await runtime.close();
      clearTimeout(force);
      process.exit(0);
    } catch (err) {
      runtime.logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * WORKERS > 1: the primary only supervises. Each worker is a whole instance on the shared
 * PostgreSQL and Redis; connections are spread over them, and a worker that dies is replaced.
 */
function runPrimary(workers: number): void {
  let stopping = false;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    cluster.fork();
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    setTimeout(() => process.exit(1), 20_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const config = configOrExit();
if (config.workers > 1 && cluster.isPrimary) runPrimary(config.workers);
else await runInstance(config);
