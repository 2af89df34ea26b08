import { ConfigError, loadConfig } from './config.js';
import { createRuntime } from './runtime.js';

try {
  process.loadEnvFile?.('.env');
} catch {
  /* no .env file: the environment alone configures the service */
}

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(err.message + '\n');
    process.exit(1);
  }
  throw err;
}

const runtime = await createRuntime(config);
await runtime.app.listen({ port: config.port, host: config.host });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  runtime.logger.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 15_000).unref();
  try {
    await runtime.close();
    clearTimeout(force);
    process.exit(0);
  } catch (err) {
    runtime.logger.error({ err }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
